/** CPU time (user + system) this process spent since `since`, in ms. */
export function cpuMsSince(since) {
  const { user, system } = process.cpuUsage(since);
  return (user + system) / 1000;
}

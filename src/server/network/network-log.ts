import type { NetworkStatus, NetworkWatch } from '../../engine/index.js';

interface Logger {
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
}

/** What a network problem means for the service's customers, said with it. */
export const UNTIL_FIXED = 'Until it is fixed every address comes back unknown (refunded to its owner)';

/** The problems in a network status, each in a sentence that says what to do; none when all is well. */
export function networkProblems(status: NetworkStatus): string[] {
  const problems: string[] = [];
  if (status.port25.state === 'blocked') problems.push(status.port25.reason ?? 'outbound SMTP appears blocked');
  if (status.resolver.state === 'untruthful') problems.push(status.resolver.reason ?? 'the resolver is not answering truthfully');
  return problems;
}

/**
 * Logs each change of what the engine found out about its network (`serve` and `worker` alike):
 * once per change, not once per address; a warning while something is wrong. Returns the stop.
 */
export function logNetworkChanges(network: NetworkWatch, log: Logger): () => void {
  return network.onChange((status) => {
    const problems = networkProblems(status);
    if (problems.length > 0) log.warn({ network: status }, `network: ${problems.join('; ')}. ${UNTIL_FIXED}`);
    // Customers' hosts timing out prove nothing yet: the check hosts are asked (docs/architecture.md "Egress").
    else if (status.port25.state === 'suspect')
      log.warn(
        { network: status },
        `network: port 25 suspected blocked (${status.port25.reason ?? 'mail hosts timed out'}); confirming against the check hosts`,
      );
    else log.info({ network: status }, 'network: SMTP connections get out and the resolver tells the truth');
  });
}

/**
 * The watch as the log hears it: what the start-up check (`startUp`) finds is said once, in plain
 * words, as the start-up warning (`mailverify: warning: …`, docs/operating.md), so the log leaves out
 * the changes made during that check and logs every one after it.
 */
export function afterStartUp(network: NetworkWatch, startUp: Promise<unknown>): NetworkWatch {
  let starting = true;
  const started = () => (starting = false);
  startUp.then(started, started);
  return {
    status: () => network.status(),
    onChange: (listener) =>
      network.onChange((status) => {
        if (!starting) listener(status);
      }),
  };
}

/**
 * Whether we run in CI (`CI` set, and not 0 or false): CI logs keep every byte written, and nobody
 * types there. Its own module so that the update notice can ask without loading the terminal code.
 */
export function inCi(env: NodeJS.ProcessEnv): boolean {
  return env.CI !== undefined && env.CI !== '' && env.CI !== '0' && env.CI !== 'false';
}

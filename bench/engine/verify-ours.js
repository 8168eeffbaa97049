/** Child process: our engine (the built dist/) verifies the world's addresses with verifyMany. */
import { serveTask } from '../lib/child.js';
import { cpuMsSince } from '../lib/cpu-time.js';

serveTask(async ({ addresses, options }) => {
  const { createVerifier } = await import('../../dist/engine/index.js');
  const verifier = createVerifier(options);
  const verdicts = {};
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await verifier.verifyMany(addresses, ({ email, result, reason }) => {
    verdicts[email] = { result, reason };
  });
  return { elapsedMs: performance.now() - started, cpuMs: cpuMsSince(cpuBefore), verdicts };
});

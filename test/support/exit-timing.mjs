// Preloaded (node --import) into the built CLI by test/e2e/cli-update-notice.test.ts: writes to
// $MAILVERIFY_TEST_TIMING how long the process ran and how long it went on after its last write to
// stdout (the command's output), so the test can measure what the update check adds to a command.
import { writeFileSync } from 'node:fs';

const file = process.env.MAILVERIFY_TEST_TIMING;
if (file && process.argv[1]?.endsWith('mailverify.js')) {
  let lastOutput = 0;
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = (...args) => {
    lastOutput = performance.now();
    return write(...args);
  };
  process.on('exit', () => {
    const end = performance.now();
    writeFileSync(file, JSON.stringify({ total: end, afterOutput: end - lastOutput }));
  });
}

/**
 * The child that reads one mbox (or, as the baseline, only splits it into lines) and reports what it
 * read and how long it took; its parent reads its peak RSS.
 */
import { createReadStream } from 'node:fs';
import { serveTask } from '../lib/child.js';

serveTask(async ({ file, stage }) => {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const cpuMs = () => {
    const used = process.cpuUsage(cpu);
    return (used.user + used.system) / 1000;
  };
  if (stage === 'lines') {
    // Baseline: the same bytes read and cut into lines, nothing parsed.
    let lines = 0;
    for await (const chunk of createReadStream(file, { highWaterMark: 256 * 1024 })) {
      for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, at + 1)) lines += 1;
    }
    return { lines, elapsedMs: performance.now() - started, cpuMs: cpuMs() };
  }
  const { readEvidencePath } = await import('../../dist/engine/evidence/read.js');
  let events = 0;
  let skips = 0;
  for await (const read of readEvidencePath(file)) {
    if ('event' in read) events += 1;
    else skips += 1;
  }
  return { events, skips, elapsedMs: performance.now() - started, cpuMs: cpuMs() };
});

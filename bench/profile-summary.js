/**
 * Where a CPU profile's time went: self time by function and by place (our dist/ files, each npm
 * package, Node's internals, garbage collection, idle). For the profiles `--cpu-prof` leaves in
 * bench/.work/profiles/.
 *
 *   node bench/profile-summary.js bench/.work/profiles/CPU.….cpuprofile [--top 15]
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';

/** Node's pseudo-frames, named as they appear in profiles. */
const PSEUDO_FRAMES = new Set(['(idle)', '(garbage collector)', '(program)', '(root)']);

function placeOf({ functionName, url }) {
  if (PSEUDO_FRAMES.has(functionName)) return functionName;
  if (!url) return '(native)';
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (inPackage) return inPackage[1];
  const ours = /\/(dist\/.*|bench\/.*)$/.exec(url);
  if (ours) return ours[1];
  return url.startsWith('node:') ? 'node internals' : url;
}

function addTo(map, key, ms) {
  map.set(key, (map.get(key) ?? 0) + ms);
}

function top(map, count, totalMs) {
  return [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, ms]) => `${ms.toFixed(0).padStart(7)} ms ${((100 * ms) / totalMs).toFixed(1).padStart(5)} %  ${name}`)
    .join('\n');
}

const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '15' } } });
if (positionals.length !== 1) throw new Error('usage: node bench/profile-summary.js <file.cpuprofile> [--top N]');
const profile = JSON.parse(await readFile(positionals[0], 'utf8'));
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const byFunction = new Map();
const byPlace = new Map();
let totalMs = 0;
profile.samples.forEach((id, i) => {
  const ms = (profile.timeDeltas[i] ?? 0) / 1000;
  const { callFrame } = nodes.get(id);
  const line = callFrame.lineNumber >= 0 ? `:${callFrame.lineNumber + 1}` : '';
  totalMs += ms;
  addTo(byFunction, `${callFrame.functionName || '(anonymous)'}  ${placeOf(callFrame)}${line}`, ms);
  addTo(byPlace, placeOf(callFrame), ms);
});
const count = Number(values.top);
console.log(
  `${positionals[0]}: ${totalMs.toFixed(0)} ms sampled\n\nself time by place:\n${top(byPlace, count, totalMs)}\n\nself time by function:\n${top(byFunction, count, totalMs)}`,
);

import type { ChalkInstance } from 'chalk';
import type { Explanation } from '../../engine/core/transcript.js';
import { terminalSafe } from '../../text/sanitize.js';

/**
 * `verify --explain` for people: under the result's line, the mail hosts, then each connection and
 * SMTP line in time order (`>` sent, `<` received, the ms since the verification began), then what
 * was reused. Every word a server sent is made harmless for the terminal.
 */
export function explanationText(details: Explanation, color: ChalkInstance): string {
  const at = (ms: number) => color.dim(`${String(ms).padStart(6)} ms`);
  const hosts = details.mxHosts.map(({ host, address }) => `${host} (${address})`).join(', ');
  const lines = [`  mail hosts: ${terminalSafe(hosts || 'none tried')}`];
  const events = [
    ...details.connections.map((attempt) => ({
      ms: attempt.ms,
      text: `connect ${attempt.host} (${attempt.address}) via ${attempt.egress}: ${attempt.outcome}`,
    })),
    ...details.transcript.map((line) => ({ ms: line.ms, text: `${line.dir === 'sent' ? '>' : '<'} ${line.line}` })),
  ];
  // A stable sort: lines of one millisecond keep the order they were recorded in.
  events.sort((a, b) => a.ms - b.ms);
  lines.push(...events.map((event) => `  ${at(event.ms)}  ${terminalSafe(event.text)}`));
  lines.push(...details.notes.map((note) => `  note: ${terminalSafe(note)}`));
  return lines.map((line) => `${line}\n`).join('');
}

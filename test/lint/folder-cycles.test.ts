import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * docs/architecture.md "Layers": imports run one way, so no part imports a part that imports it
 * back. Every folder is a part of its own, apart from its subfolders (src/engine beside
 * src/engine/smtp, src/server/dashboard beside its pages/). The lint rules forbid the imports that
 * are known to run back up; this finds any loop, named or not.
 */
const src = resolve(import.meta.dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every folder is a part of its own, subfolders apart from their parent. */
function partOf(file: string): string {
  return relative(src, dirname(file)).split(sep).join('/') || '.';
}

/** Each part's imports of other parts, with one import that makes each edge. */
function partImports(): Map<string, Map<string, string>> {
  const edges = new Map<string, Map<string, string>>();
  for (const file of sourceFiles(src)) {
    const from = partOf(file);
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'(\.\.?\/[^']+)'/g)) {
      const to = partOf(resolve(dirname(file), spec!));
      if (to === from) continue;
      if (!edges.has(from)) edges.set(from, new Map());
      edges.get(from)!.set(to, `${relative(src, file)} imports ${spec}`);
    }
  }
  return edges;
}

function reaches(edges: Map<string, Map<string, string>>, start: string, goal: string): boolean {
  const seen = new Set([start]);
  const next = [start];
  for (let part = next.pop(); part !== undefined; part = next.pop()) {
    if (part === goal) return true;
    for (const to of edges.get(part)?.keys() ?? []) {
      if (!seen.has(to)) {
        seen.add(to);
        next.push(to);
      }
    }
  }
  return false;
}

describe('the parts of src', () => {
  it('import each other one way only', () => {
    const edges = partImports();
    const back = [...edges].flatMap(([from, tos]) => [...tos].filter(([to]) => reaches(edges, to, from)).map(([, example]) => example));
    expect(back).toEqual([]);
  });

  it('are told apart down to each folder', () => {
    const edges = partImports();
    expect(edges.get('server')?.has('server/http')).toBe(true);
    expect(edges.get('engine')?.has('engine/bulk')).toBe(true);
    expect(edges.get('server/dashboard')?.has('server/dashboard/pages')).toBe(true);
    expect(edges.get('cli/commands/profile')?.has('cli/commands/support')).toBe(true);
  });
});

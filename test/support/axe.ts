import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/** axe-core's own script, run in the page as a person's browser extension would: every WCAG A and AA rule. */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

type Impact = 'minor' | 'moderate' | 'serious' | 'critical';

/** The page's axe violations as `rule: [targets]`; with `impacts`, only those of these impacts. */
export async function axeViolations(page: Page, impacts?: readonly Impact[]): Promise<string[]> {
  // Evaluated over the DevTools protocol: the page's CSP (no inline script) stays as it is.
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: {
          run(context: unknown, options: unknown): Promise<{ violations: Array<{ id: string; impact: Impact | null; nodes: Array<{ target: unknown }> }> }>;
        };
      }
    ).axe;
    const result = await axe.run((globalThis as unknown as { document: unknown }).document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
    });
    return result.violations.map((violation) => ({
      impact: violation.impact,
      text: `${violation.id}: ${JSON.stringify(violation.nodes.map((node) => node.target))}`,
    }));
  });
  return violations.filter((violation) => !impacts || (violation.impact !== null && impacts.includes(violation.impact))).map((violation) => violation.text);
}

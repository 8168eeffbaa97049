/**
 * Provider rules (docs/architecture.md "Provider rules"): how hard a provider's mail hosts may be
 * probed and what their answers prove, from data/provider-rules.json and the operator's own file.
 */
import { readFileSync } from 'node:fs';
import { nameAndParents, once, readDataFile } from '../lists/load.js';
import { parseProviderRules, type ProviderRule, type ProviderRuleTable } from './rules-file.js';

const BUILT_IN = 'provider-rules.json';
const builtIn = once(() => parseProviderRules(`data/${BUILT_IN}`, readDataFile(BUILT_IN)));

/** A rule with the suffix it was found under, for the words of a result. */
export interface MatchedRule extends ProviderRule {
  suffix: string;
}

export class ProviderRules {
  private readonly bySuffix: ReadonlyMap<string, ProviderRule>;

  constructor(table: ProviderRuleTable) {
    this.bySuffix = new Map(Object.entries(table));
  }

  /** The rule of an MX host: the longest suffix wins (mail.protection.outlook.com over outlook.com). */
  of(hostname: string): MatchedRule | undefined {
    for (const name of nameAndParents(hostname)) {
      const rule = this.bySuffix.get(name);
      if (rule) return { ...rule, suffix: name };
    }
    return undefined;
  }
}

/**
 * The built-in rules, with the operator's file (if any) over them: an operator rule adds a suffix,
 * or replaces the built-in rule of the same suffix whole, so that its `source` speaks for all of it.
 */
export function loadProviderRules(operatorFile: string | null): ProviderRules {
  const operator = operatorFile === null ? {} : parseProviderRules(operatorFile, readFileSync(operatorFile, 'utf8'));
  return new ProviderRules({ ...builtIn(), ...operator });
}

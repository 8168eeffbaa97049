/**
 * How the RCPT reply table does on replies it was not built from (issue 21). The table is written
 * by hand, so "fitting it without a source" is simulated: every pattern is credited to the corpus
 * replies it decides, and when a source is held out, each text alternative (a phrase between
 * top-level `|`) or text row that only that source's replies speak for is taken out, as if that
 * source had never been read. Rows without text (a bare code or enhanced code: RFC knowledge,
 * not any source's wording) and phrases no corpus reply uses are kept. The held-out source's
 * replies are then scored on `smtpStatus`; every source is held out in turn and every reply is
 * scored once, while its source is out.
 */

/** `a|b(c|d)|[|]e` → ['a', 'b(c|d)', '[|]e']: the alternatives of a pattern at its top level. */
export function topLevelAlternatives(source) {
  const parts = [];
  let depth = 0;
  let inClass = false;
  let start = 0;
  for (let index = 0; index < source.length; index += 1) {
    const char = source[index];
    if (char === '\\') index += 1;
    else if (inClass) inClass = char !== ']';
    else if (char === '[') inClass = true;
    else if (char === '(') depth += 1;
    else if (char === ')') depth -= 1;
    else if (char === '|' && depth === 0) {
      parts.push(source.slice(start, index));
      start = index + 1;
    }
  }
  parts.push(source.slice(start));
  return parts;
}

function matchesHead(rule, reply) {
  if (rule.code !== undefined && !rule.code.test(String(reply.code))) return false;
  return rule.enhanced === undefined || (reply.enhanced !== null && rule.enhanced.test(reply.enhanced));
}

/** The rules split into alternatives, each alternative with the corpus replies it decides. */
function credit(rules, replies) {
  const split = rules.map((rule) => ({
    rule,
    alternatives:
      rule.text === undefined
        ? null
        : topLevelAlternatives(rule.text.source).map((source) => ({ regex: new RegExp(source, rule.text.flags), source, speakers: [] })),
  }));
  for (const entry of replies) {
    const deciding = split.find(({ rule }) => matchesHead(rule, entry.parsed) && (rule.text === undefined || rule.text.test(entry.parsed.text)));
    for (const alternative of deciding?.alternatives ?? []) if (alternative.regex.test(entry.parsed.text)) alternative.speakers.push(entry);
  }
  return split;
}

/** The table as it would be without the phrases only `group`'s replies speak for. */
function without(split, group, groupOf) {
  const rules = [];
  for (const { rule, alternatives } of split) {
    if (alternatives === null) {
      rules.push(rule);
      continue;
    }
    const kept = alternatives.filter(({ speakers }) => speakers.length === 0 || speakers.some((entry) => groupOf(entry) !== group));
    if (kept.length > 0) rules.push({ ...rule, text: new RegExp(kept.map(({ source }) => source).join('|'), rule.text.flags) });
  }
  return rules;
}

function kindUnder(rules, reply, fallback) {
  return rules.find((rule) => matchesHead(rule, reply) && (rule.text === undefined || rule.text.test(reply.text)))?.kind ?? fallback;
}

/**
 * Share (%) of replies whose `smtpStatus` is right when their group is held out, over all groups;
 * and the same with the whole table (the in-sample figure). `entries` carry `parsed` and `status`.
 * `statusOf(kind, entry)`, when given, is what the engine makes of a kind for that reply (the
 * postmaster control); `scored` has each entry with the status it got held out.
 */
export function crossSourceAccuracy({ rules, statusOfKind, fallbackKind, statusOf = (kind) => statusOfKind(kind) }, entries, groupOf) {
  const split = credit(rules, entries);
  const groups = new Map();
  for (const entry of entries) groups.set(groupOf(entry), [...(groups.get(groupOf(entry)) ?? []), entry]);
  let right = 0;
  let inSample = 0;
  const missed = [];
  const scored = [];
  for (const [group, members] of groups) {
    const table = without(split, group, groupOf);
    for (const entry of members) {
      if (statusOf(kindUnder(rules, entry.parsed, fallbackKind), entry) === entry.status) inSample += 1;
      const status = statusOf(kindUnder(table, entry.parsed, fallbackKind), entry);
      scored.push({ entry, status });
      if (status === entry.status) right += 1;
      else missed.push({ group, reply: entry.reply, expected: entry.status, got: status });
    }
  }
  return { percent: (100 * right) / entries.length, inSamplePercent: (100 * inSample) / entries.length, groups: groups.size, missed, scored };
}

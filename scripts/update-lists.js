#!/usr/bin/env node
// `npm run lists:update`: brings the external disposable-domain list (the `disposable-email-domains`
// npm package) to its latest release and reports what changed. Our own lists in data/ are kept by
// hand; this reports their sizes and which of our disposable additions upstream now carries, so
// they can be removed. It changes package.json / package-lock.json only when upstream moved on.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const PACKAGE = 'disposable-email-domains';
const ROOT = new URL('../', import.meta.url);

const readJson = (url) => JSON.parse(readFileSync(url, 'utf8'));
// Same format as src/engine/lists/load.ts reads: one entry a line, `#` comments.
const readWordList = (name) =>
  readFileSync(new URL(`data/${name}`, ROOT), 'utf8')
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim().toLowerCase())
    .filter(Boolean);

function installedUpstream() {
  const dir = new URL(`node_modules/${PACKAGE}/`, ROOT);
  return {
    version: readJson(new URL('package.json', dir)).version,
    domains: new Set(['index.json', 'wildcard.json'].flatMap((file) => readJson(new URL(file, dir)))),
  };
}

const before = installedUpstream();
execFileSync('npm', ['install', '--save', `${PACKAGE}@latest`], { cwd: ROOT, stdio: 'inherit' });
const after = installedUpstream();

const added = [...after.domains].filter((domain) => !before.domains.has(domain)).length;
const removed = [...before.domains].filter((domain) => !after.domains.has(domain)).length;
console.log(`${PACKAGE}: ${before.version} -> ${after.version}, ${before.domains.size} -> ${after.domains.size} domains (+${added} -${removed})`);

const extras = readWordList('disposable-extra.txt');
const nowUpstream = extras.filter((domain) => after.domains.has(domain));
console.log(`data/disposable-extra.txt: ${extras.length} domains, ${nowUpstream.length} now upstream`);
for (const domain of nowUpstream) console.log(`  can be removed: ${domain}`);

const { providers } = readJson(new URL('data/providers.json', ROOT));
console.log(`data/role-local-parts.txt: ${readWordList('role-local-parts.txt').length} local parts`);
console.log(
  `data/providers.json: ${providers.length} providers, ` +
    `${providers.reduce((n, p) => n + p.domains.length, 0)} domains, ` +
    `${providers.reduce((n, p) => n + p.mxSuffixes.length, 0)} MX suffixes`,
);

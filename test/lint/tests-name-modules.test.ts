import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * CONTRIBUTING.md "Tests with real parts" says where each kind of test lives; this says that a
 * newcomer finds the tests of a module: every module under src/ with logic (a function, a method, a
 * class) is imported by a test file, or is covered by an exception below that names the tests which
 * reach it another way (through the built CLI, the service, the engine or the store contract).
 */
const root = resolve(import.meta.dirname, '../..');

/** Modules no test imports, by folder or file, each with where they are tested instead. */
const EXCEPTIONS: Array<[RegExp, string]> = [
  [
    /^src\/cli\/(commands|program)\//,
    'commands and the command tree: run as the built CLI in test/e2e/cli-*.test.ts; parse/run in test/unit/cli-*-command(s).test.ts',
  ],
  [/^src\/cli\/(files|help|local-service|options|output|session)\//, "the commands' shared helpers: through the commands in test/e2e/cli-*.test.ts"],
  [/^src\/cli\/update-check\.ts$/, 'the update check: test/e2e/cli-update-notice.test.ts against a registry of its own'],
  [/^src\/client\/(transport|types)\.ts$/, "the client's transport and types: through the client in test/unit/client-http.test.ts and the CLI's e2e tests"],
  [
    /^src\/csv\/(fingerprint|not-text|parse-error|precheck)\.ts$/,
    'CSV reading helpers: through the readers in test/unit/csv-*.test.ts and test/e2e/cli-merge-back.test.ts',
  ],
  [
    /^src\/engine\/(bulk|checks|core|net|smtp)\//,
    "the engine's parts: through createVerifier against DNS and SMTP fixtures in test/integration/engine-*.test.ts",
  ],
  [
    /^src\/engine\/evidence\/(bounce|bounce-parts|bounce-text|csv-events|detect|dsn|json-events|json-file|mbox|mime|stream)\.ts$/,
    "evidence reading's parts: through readEvidencePath and readEvidenceStream in test/unit/evidence/*.test.ts and test/integration/bounce-corpus.test.ts",
  ],
  [/^src\/engine\/sandbox\.ts$/, "the sandbox's answers: through a test token and --local --sandbox in test/e2e/sandbox.test.ts"],
  [/^src\/engine\/result-filter\.ts$/, 'the result filter: through `--fail-on` and `--only` in test/e2e/cli-verify*.test.ts'],
  [
    /^src\/server\/(auth|dashboard|http|routes|schemas)\//,
    'the HTTP service: through the service in test/integration/service-*.test.ts and test/integration/dashboard-http.test.ts',
  ],
  [
    /^src\/server\/(jobs|network|verifier|metrics)\//,
    "the service's background parts: through the runner in test/integration/job-runner.test.ts and the service in test/e2e/",
  ],
  [
    /^src\/server\/store\/(flows|rows|sqlite|postgres)\//,
    "the store's dialects and flows: through the store contract on both dialects, test/integration/store-contract*.test.ts",
  ],
  [
    /^src\/server\/store\/(fair-order|migration-files|refund-rule|webhook-events|webhook-model)\.ts$/,
    'store helpers: through the store contract, test/integration/store-contract*.test.ts',
  ],
  [/^src\/server\/(serve|worker|service-parts|local-run)\.ts$/, 'the wiring: as processes in test/e2e/ (workers, service-shutdown, cli-bulk-local)'],
  [
    /^src\/server\/receivers\/(manage|post-outcome|sendgrid-post|sns-post)\.ts$/,
    "what an ESP's post to an evidence receiver does: through the service in test/integration/evidence-receivers.test.ts",
  ],
  [/^src\/server\/services\//, 'what routes and pages share: through the service in test/integration/service-*.test.ts'],
  [/^src\/server\/webhooks\/endpoints\.ts$/, 'webhook endpoints: through the service in test/e2e/webhooks.test.ts'],
  [/^src\/text\/fs-errors\.ts$/, "file errors' words: through the CLI in test/e2e/bad-paths.test.ts"],
];

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Whether a module holds more than types and constants: a function, a method or a class with a body. */
function hasLogic(path: string): boolean {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, false);
  const found = (node: ts.Node): boolean =>
    ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isConstructorDeclaration(node) || ts.isAccessor(node)) && node.body !== undefined) ||
    ts.isArrowFunction(node) ||
    ts.isFunctionExpression(node) ||
    ts.forEachChild(node, found) === true;
  return found(source);
}

const modules = filesUnder(join(root, 'src'))
  .map((path) => relative(root, path))
  .filter((path) => hasLogic(join(root, path)));
const testTexts = filesUnder(join(root, 'test')).map((path) => readFileSync(path, 'utf8'));
/** A test names a module when it imports it: by its path from src/, with the .js the imports use. */
const named = (module: string) => testTexts.some((text) => text.includes(`${module.slice('src/'.length, -'.ts'.length)}.js'`));
const unnamed = modules.filter((module) => !named(module));

describe('the tests of each module', () => {
  it('are found by its name: every module with logic is imported by a test, or is an exception with its reason', () => {
    expect(unnamed.filter((module) => !EXCEPTIONS.some(([pattern]) => pattern.test(module)))).toEqual([]);
  });

  it('keep no stale exception: each covers a module that no test imports', () => {
    expect(EXCEPTIONS.filter(([pattern]) => !unnamed.some((module) => pattern.test(module))).map(([pattern]) => String(pattern))).toEqual([]);
  });
});

/**
 * Every command module (one that exports both `parse` and `run`, src/cli/program/lazy.ts) has a unit
 * test that calls both directly: its options checked without commander, its work without a process.
 * A test file counts when it imports the module by path and calls `alias.parse(` and `alias.run(`
 * for a namespace import, or the local names of `parse` and `run` for named ones.
 */
/** The names a module exports, whether declared there (`export function parse`) or passed on (`export { programOnly as parse }`). */
function exportedNames(source: ts.SourceFile): string[] {
  return source.statements.flatMap((statement) => {
    if (ts.isFunctionDeclaration(statement) && statement.name && ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) {
      return [statement.name.text];
    }
    if (ts.isExportDeclaration(statement) && statement.exportClause && ts.isNamedExports(statement.exportClause)) {
      return statement.exportClause.elements.map((element) => element.name.text);
    }
    return [];
  });
}

/** What a test file calls the module's `parse` and `run` (`x.parse`, or the names it imported them as); undefined when it does not import it. */
function callNames(source: ts.SourceFile, specifier: string): { parse?: string; run?: string } | undefined {
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    if (!statement.moduleSpecifier.text.endsWith(specifier)) continue;
    const bindings = statement.importClause?.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings)) return { parse: `${bindings.name.text}.parse`, run: `${bindings.name.text}.run` };
    const named = bindings && ts.isNamedImports(bindings) ? bindings.elements : [];
    const local = (name: string) => named.find((element) => (element.propertyName ?? element.name).text === name)?.name.text;
    return { parse: local('parse'), run: local('run') };
  }
  return undefined;
}

const commandModules = filesUnder(join(root, 'src/cli/commands'))
  .map((path) => relative(root, path))
  .filter((path) => {
    const names = exportedNames(ts.createSourceFile(path, readFileSync(join(root, path), 'utf8'), ts.ScriptTarget.Latest, false));
    return names.includes('parse') && names.includes('run');
  });
const unitTests = filesUnder(join(root, 'test/unit')).map((path) => {
  const text = readFileSync(path, 'utf8');
  return { text, source: ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false) };
});

/** Whether a unit test imports the command's module and calls both its parse and its run. */
function parsedAndRun(module: string): boolean {
  const specifier = `/${module.slice('src/'.length, -'.ts'.length)}.js`;
  return unitTests.some(({ text, source }) => {
    const names = callNames(source, specifier);
    return names?.parse !== undefined && names.run !== undefined && text.includes(`${names.parse}(`) && text.includes(`${names.run}(`);
  });
}

describe('the tests of each command', () => {
  it('call its parse and its run: every command module is parsed and run by a unit test', () => {
    expect(commandModules.length).toBeGreaterThan(30);
    expect(commandModules.filter((module) => !parsedAndRun(module))).toEqual([]);
  });
});

import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The layers of docs/architecture.md "Layers" are lint rules: a copy of the sources with an import
 * planted that runs back up must fail `eslint` with the layer's message, and the copy as it is must pass.
 */
const root = resolve(import.meta.dirname, '../..');
let copy: string;

async function lint(...files: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, ['node_modules/eslint/bin/eslint.js', ...files], { cwd: copy });
    return { code: 0, output: stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, output: failed.stdout };
  }
}

/** Lints `file` written with `text` in the copy, then removes it. */
async function lintPlanted(file: string, text: string): Promise<{ code: number; output: string }> {
  writeFileSync(join(copy, file), text);
  try {
    return await lint(file);
  } finally {
    rmSync(join(copy, file));
  }
}

beforeAll(() => {
  copy = mkdtempSync(join(tmpdir(), 'mailverify-layers-'));
  cpSync(join(root, 'src'), join(copy, 'src'), { recursive: true });
  cpSync(join(root, 'eslint.config.js'), join(copy, 'eslint.config.js'));
  cpSync(join(root, 'package.json'), join(copy, 'package.json'));
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'));
});
afterAll(() => rmSync(copy, { recursive: true, force: true }));

describe('the layer rules', () => {
  it('pass on the sources as they are', async () => {
    expect(await lint('src/engine', 'src/client', 'src/csv', 'src/server', 'src/cli')).toEqual({ code: 0, output: '' });
  });

  it.each([
    ['src/engine/smtp/planted.ts', "import { buildApp } from '../../server/app.js';", 'the engine imports nothing'],
    ['src/engine/planted.ts', "import { terminalSafe } from '../text/sanitize.js';", 'the engine imports nothing'],
    ['src/engine/net/planted.ts', "import { SmtpSession } from '../smtp/session.js';", 'net/ imports only those before it'],
    ['src/engine/bulk/planted.ts', "import { createVerifier } from '../index.js';", 'bulk/ imports only those before it'],
    ['src/client/planted.ts', "import type { Store } from '../server/store/store.js';", 'over HTTP only'],
    ['src/csv/planted.ts', "import { main } from '../cli/main.js';", 'never imports the CLI'],
    ['src/text/planted.ts', "import { checkFormat } from '../engine/checks/format.js';", 'the bottom layer'],
    ['src/server/store/flows/planted.ts', "import { startJobRunner } from '../../jobs/runner.js';", 'below every part of the service'],
    ['src/server/store/rows/planted.ts', "import { runNow } from '../flows/flow.js';", 'rows/ imports only those before it'],
    ['src/server/store/sqlite/planted.ts', "import { openStore } from '../open/open-store.js';", 'sqlite/ imports only those before it'],
    ['src/server/http/planted.ts', "import { verifyRoutes } from '../routes/verify.js';", 'just above the store'],
    ['src/server/webhooks/planted.ts', "import { startJobRunner } from '../jobs/runner.js';", 'through src/server/background'],
    ['src/server/dashboard/pages/planted.ts', "import { buildApp } from '../../app.js';", 'imports the parts, never the other way'],
    ['src/server/dashboard/common/planted.ts', "import { jobPages } from '../pages/jobs.js';", 'below the pages and the plugin'],
    ['src/server/dashboard/common/planted.ts', "import { buildApp } from '../../app.js';", 'imports the parts, never the other way'],
    ['src/server/dashboard/pages/planted.ts', "import { verifyRoutes } from '../../routes/verify.js';", 'never a route module'],
    ['src/server/dashboard/common/planted.ts', "import { bulkRoutes } from '../../routes/bulk.js';", 'never a route module'],
    ['src/server/services/planted.ts', "import { bulkRoutes } from '../routes/bulk.js';", 'routes and pages both call'],
    ['src/server/jobs/planted.ts', "import { rescuer } from '../maintenance/rescuer.js';", 'maintenance wakes it, never the other way'],
    ['src/server/maintenance/planted.ts', "import { startJobRunner } from '../jobs/runner.js';", 'the wiring hands them a callback'],
    ['src/cli/program/planted.ts', "import { run } from '../commands/verify.js';", 'only when the command runs'],
    ['src/cli/output/planted.ts', "import { createSession } from '../session/session.js';", 'output/ imports only those before it'],
    ['src/cli/session/planted.ts', "import { run } from '../commands/verify.js';", 'session/ imports only those before it'],
    ['src/cli/commands/planted.ts', "import { buildProgram } from '../program/build.js';", 'below the command tree and the entry'],
    ['src/cli/planted.ts', "import { hashPassword } from '../server/auth/passwords.js';", 'the CLI enters the service by its doors'],
    ['src/cli/local-service/planted.ts', "import type { Store } from '../../server/store/store.js';", 'the CLI enters the service by its doors'],
    [
      'src/cli/commands/admin/planted.ts',
      "import { DATABASE_FILE } from '../../../server/store/open/sqlite-store.js';",
      'the CLI enters the service by its doors',
    ],
    ['src/cli/program/planted.ts', "import { LOG_LEVELS } from '../../server/logging/logger.js';", 'the CLI enters the service by its doors'],
  ])('fail on %s importing back up', async (file, line, message) => {
    const { code, output } = await lintPlanted(file, `${line}\nexport const planted = 1;\n`);
    expect(code).toBe(1);
    expect(output).toContain('no-restricted-imports');
    expect(output).toContain(message);
  });

  it("fail on the CLI's import() of a part of the service, and pass on its doors", async () => {
    const behind = await lintPlanted('src/cli/commands/planted.ts', "export const planted = () => import('../../server/jobs/runner.js');\n");
    expect(behind.code).toBe(1);
    expect(behind.output).toContain('no-restricted-syntax');
    expect(behind.output).toContain('the CLI enters the service by its doors');
    const doors = ['serve', 'worker', 'local-run', 'admin', 'settings', 'store/open/open-store'].map((door) => `() => import('../../server/${door}.js')`);
    expect(await lintPlanted('src/cli/commands/planted.ts', `export const planted = [${doors.join(', ')}];\n`)).toEqual({ code: 0, output: '' });
  });
});

import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS as POSTGRES_MIGRATIONS } from '../../src/server/store/postgres/migrate.js';
import { MIGRATIONS as SQLITE_MIGRATIONS } from '../../src/server/store/sqlite/migrate.js';

const filesOf = (dialect: string) => readdirSync(new URL(`../../migrations/${dialect}/`, import.meta.url)).sort();

describe('the migration files', () => {
  it('are the same files, by number and name, for both dialects', () => {
    expect(filesOf('sqlite')).toEqual(filesOf('postgres'));
  });

  it('are what each dialect migrates by, every one of them, in order', () => {
    const described = (migrations: readonly { version: number; name: string }[]) =>
      migrations.map(({ version, name }) => `${String(version).padStart(3, '0')}_${name}.sql`);
    expect(described(SQLITE_MIGRATIONS)).toEqual(filesOf('sqlite'));
    expect(described(POSTGRES_MIGRATIONS)).toEqual(filesOf('postgres'));
  });
});

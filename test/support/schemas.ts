import type Sqlite from 'better-sqlite3';
import type pg from 'pg';

/**
 * A schema as both dialects can say it, reduced to what must agree between them: per table, its
 * columns with their type's family and nullability, its primary key, its foreign keys, its indexes
 * by columns (unique or not) and how many CHECK constraints it has. Names of indexes and
 * constraints differ by dialect by design, so they are left out.
 */
export type Schema = Record<string, TableShape>;

export interface TableShape {
  columns: Record<string, { family: TypeFamily; nullable: boolean }>;
  primaryKey: string[];
  foreignKeys: string[];
  indexes: string[];
  checks: number;
}

type TypeFamily = 'integer' | 'text' | 'real' | 'boolean' | 'blob' | 'json' | 'other';

/** Types by family: SQLite's declared affinities and PostgreSQL's types that store the same values. */
function familyOf(declared: string): TypeFamily {
  const type = declared.toLowerCase();
  if (/^(integer|int|bigint|smallint)/.test(type)) return 'integer';
  if (/^(text|varchar|character|char|uuid)/.test(type)) return 'text';
  if (/^(real|double|numeric|float)/.test(type)) return 'real';
  if (/^bool/.test(type)) return 'boolean';
  if (/^(blob|bytea)/.test(type)) return 'blob';
  if (/^jsonb?$/.test(type)) return 'json';
  return 'other';
}

/** Tables that exist by a dialect's own design: each store's migration bookkeeping. */
const OWN_TABLES = new Set(['schema_migrations', 'sqlite_sequence']);

const indexKey = (columns: string[], unique: boolean, partial: boolean) => `${unique ? 'unique ' : ''}(${columns.join(', ')})${partial ? ' where …' : ''}`;

export function sqliteSchema(db: Sqlite.Database): Schema {
  const tables = db
    .prepare<[], { name: string; sql: string }>("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    .all()
    .filter(({ name }) => !OWN_TABLES.has(name));
  const schema: Schema = {};
  for (const { name, sql } of tables) {
    const info = db.prepare<[], { name: string; type: string; notnull: number; pk: number }>(`PRAGMA table_info("${name}")`).all();
    const columns = Object.fromEntries(
      info.map((column) => [column.name, { family: familyOf(column.type), nullable: column.notnull === 0 && column.pk === 0 }]),
    );
    const primaryKey = info
      .filter((column) => column.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((column) => column.name);
    const foreignKeys = db
      .prepare<[], { id: number; table: string; from: string; to: string | null; on_delete: string }>(`PRAGMA foreign_key_list("${name}")`)
      .all()
      .map((key) => `${key.from} -> ${key.table}${key.to ? `.${key.to}` : ''} on delete ${key.on_delete.toLowerCase()}`)
      .sort();
    const indexes = db
      .prepare<[], { name: string; unique: number; origin: string; partial: number }>(`PRAGMA index_list("${name}")`)
      .all()
      .filter((index) => index.origin !== 'pk')
      .map((index) => {
        const columns = db
          .prepare<[], { name: string | null }>(`PRAGMA index_info("${index.name}")`)
          .all()
          .map((column) => column.name ?? '<expression>');
        return indexKey(columns, index.unique === 1, index.partial === 1);
      })
      .sort();
    const checks = (sql.match(/\bCHECK\s*\(/gi) ?? []).length;
    schema[name] = { columns, primaryKey, foreignKeys, indexes, checks };
  }
  return schema;
}

export async function postgresSchema(client: pg.ClientBase): Promise<Schema> {
  const schema: Schema = {};
  const columns = await client.query<{ table_name: string; column_name: string; data_type: string; is_nullable: string }>(
    `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
     WHERE table_schema = current_schema() AND table_name IN (SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE')
     ORDER BY table_name, ordinal_position`,
  );
  for (const row of columns.rows) {
    if (OWN_TABLES.has(row.table_name)) continue;
    schema[row.table_name] ??= { columns: {}, primaryKey: [], foreignKeys: [], indexes: [], checks: 0 };
    schema[row.table_name]!.columns[row.column_name] = { family: familyOf(row.data_type), nullable: row.is_nullable === 'YES' };
  }
  const constraints = await client.query<{
    table: string;
    type: string;
    columns: string[];
    target: string | null;
    target_columns: string[] | null;
    on_delete: string;
  }>(
    `SELECT c.conrelid::regclass::text AS table, c.contype AS type,
            ARRAY(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY k(n, i) JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.i) AS columns,
            c.confrelid::regclass::text AS target,
            ARRAY(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY k(n, i) JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n ORDER BY k.i) AS target_columns,
            c.confdeltype AS on_delete
     FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
     WHERE n.nspname = current_schema() AND c.conrelid <> 0`,
  );
  const onDelete: Record<string, string> = { a: 'no action', r: 'restrict', c: 'cascade', n: 'set null', d: 'set default' };
  for (const row of constraints.rows) {
    const table = schema[row.table];
    if (!table) continue;
    if (row.type === 'p') table.primaryKey = row.columns;
    else if (row.type === 'c') table.checks += 1;
    else if (row.type === 'f')
      table.foreignKeys.push(
        `${row.columns.join(', ')} -> ${row.target}${row.target_columns?.length ? `.${row.target_columns.join(', ')}` : ''} on delete ${onDelete[row.on_delete]}`,
      );
  }
  const indexes = await client.query<{ table: string; columns: string[]; unique: boolean; partial: boolean; primary: boolean }>(
    `SELECT i.indrelid::regclass::text AS table, i.indisunique AS unique, i.indpred IS NOT NULL AS partial, i.indisprimary AS primary,
            ARRAY(SELECT CASE WHEN k.n = 0 THEN '<expression>' ELSE a.attname::text END FROM unnest(i.indkey) WITH ORDINALITY k(n, o)
                  LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.n ORDER BY k.o) AS columns
     FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
     WHERE n.nspname = current_schema()`,
  );
  for (const row of indexes.rows) {
    const table = schema[row.table];
    if (!table || row.primary) continue;
    table.indexes.push(indexKey(row.columns, row.unique, row.partial));
  }
  for (const table of Object.values(schema)) {
    table.foreignKeys.sort();
    table.indexes.sort();
  }
  return schema;
}

import type { EvidenceEvent } from '../../../engine/evidence/event.js';
import { addressKey } from '../../../engine/checks/address-key.js';
import type { EvidenceCount, EvidencePage, EvidencePageRequest, EvidenceSelection } from '../evidence-model.js';
import { byAddress, cursorId, evidenceKeys, evidencePage, evidenceValues, type EvidenceRow } from '../rows/evidence.js';
import type { EvidenceStore } from '../store.js';
import type { Database } from './database.js';

const COLUMNS = 'id, email_key, kind, at, status, diagnostic, source, imported_at';
/** Events written per statement: a 10,000-event batch in a few round trips, inside its one transaction. */
const ROWS_PER_INSERT = 1_000;

/** An account's evidence on PostgreSQL (EvidenceStore). */
export class PostgresEvidence implements EvidenceStore {
  constructor(private readonly db: Database) {}

  async addEvidence(userId: number, events: readonly EvidenceEvent[]): Promise<{ added: number }> {
    const importedAt = this.db.timestamp();
    const rows = events.map(evidenceValues);
    const added = await this.db.transaction(async (sql) => {
      let count = 0;
      for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
        const part = rows.slice(start, start + ROWS_PER_INSERT);
        const column = <Key extends keyof (typeof part)[number]>(key: Key) => part.map((row) => row[key]);
        count += await sql.run(
          `INSERT INTO evidence (user_id, email_key, kind, at, status, diagnostic, source, fingerprint, imported_at)
           SELECT $1, * , $9 FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
           ON CONFLICT (user_id, fingerprint) DO NOTHING`,
          [
            userId,
            column('emailKey'),
            column('kind'),
            column('at'),
            column('status'),
            column('diagnostic'),
            column('source'),
            column('fingerprint'),
            importedAt,
          ],
        );
      }
      return count;
    });
    return { added };
  }

  async evidenceFor(userId: number, emails: readonly string[], since = ''): Promise<Map<string, EvidenceEvent[]>> {
    const rows = await this.db.sql.rows<EvidenceRow>(
      `SELECT ${COLUMNS} FROM evidence WHERE user_id = $1 AND email_key = ANY($2::text[]) AND at >= $3 ORDER BY at DESC, id DESC`,
      [userId, evidenceKeys(emails), since],
    );
    return byAddress(rows);
  }

  async listEvidence(userId: number, request: EvidencePageRequest): Promise<EvidencePage> {
    const below = cursorId(request);
    const rows =
      request.email === undefined
        ? await this.db.sql.rows<EvidenceRow>(`SELECT ${COLUMNS} FROM evidence WHERE user_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3`, [
            userId,
            below,
            request.limit + 1,
          ])
        : await this.db.sql.rows<EvidenceRow>(`SELECT ${COLUMNS} FROM evidence WHERE user_id = $1 AND email_key = $2 AND id < $3 ORDER BY id DESC LIMIT $4`, [
            userId,
            addressKey(request.email),
            below,
            request.limit + 1,
          ]);
    return evidencePage(rows, request.limit);
  }

  async evidenceCounts(userId: number): Promise<EvidenceCount[]> {
    const rows = await this.db.sql.rows<EvidenceCount & { count: string }>(
      'SELECT kind, source, COUNT(*) AS count FROM evidence WHERE user_id = $1 GROUP BY kind, source ORDER BY kind, source',
      [userId],
    );
    return rows.map((row) => ({ ...row, count: Number(row.count) }));
  }

  deleteEvidence(userId: number, selection: EvidenceSelection): Promise<number> {
    return this.db.sql.run('DELETE FROM evidence WHERE user_id = $1 AND ($2::text IS NULL OR email_key = $2) AND ($3::text IS NULL OR source = $3)', [
      userId,
      selection.email === undefined ? null : addressKey(selection.email),
      selection.source ?? null,
    ]);
  }

  deleteEvidenceBefore(before: string, limit: number): Promise<number> {
    return this.db.sql.run('DELETE FROM evidence WHERE id IN (SELECT id FROM evidence WHERE imported_at < $1 ORDER BY imported_at LIMIT $2)', [before, limit]);
  }
}

import type { EvidenceEvent } from '../../../engine/evidence/event.js';
import type { EvidenceCount, EvidencePage, EvidencePageRequest, EvidenceSelection } from '../evidence-model.js';
import { byAddress, cursorId, evidenceKeys, evidencePage, evidenceValues, type EvidenceRow } from '../rows/evidence.js';
import { addressKey } from '../../../engine/checks/address-key.js';
import type { Connection } from './database.js';

const COLUMNS = 'id, email_key, kind, at, status, diagnostic, source, imported_at';
/** Addresses asked per statement: well under SQLite's limit of bound values. */
const KEYS_PER_READ = 500;

/** An account's evidence on SQLite (EvidenceStore). */
export class SqliteEvidence {
  private readonly sql;

  constructor(private readonly connection: Connection) {
    const prepare = connection.prepare.bind(connection);
    this.sql = {
      add: prepare(
        `INSERT INTO evidence (user_id, email_key, kind, at, status, diagnostic, source, fingerprint, imported_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (user_id, fingerprint) DO NOTHING`,
      ),
      page: prepare<EvidenceRow>(`SELECT ${COLUMNS} FROM evidence WHERE user_id = ? AND id < ? ORDER BY id DESC LIMIT ?`),
      pageOf: prepare<EvidenceRow>(`SELECT ${COLUMNS} FROM evidence WHERE user_id = ? AND email_key = ? AND id < ? ORDER BY id DESC LIMIT ?`),
      counts: prepare<EvidenceCount>('SELECT kind, source, COUNT(*) AS count FROM evidence WHERE user_id = ? GROUP BY kind, source ORDER BY kind, source'),
      delete: prepare('DELETE FROM evidence WHERE user_id = ? AND (? IS NULL OR email_key = ?) AND (? IS NULL OR source = ?)'),
      deleteBefore: prepare('DELETE FROM evidence WHERE id IN (SELECT id FROM evidence WHERE imported_at < ? ORDER BY imported_at LIMIT ?)'),
    };
  }

  addEvidence(userId: number, events: readonly EvidenceEvent[]): { added: number } {
    const importedAt = this.connection.timestamp();
    const rows = events.map(evidenceValues);
    const added = this.connection.db.transaction(() => {
      let count = 0;
      for (const row of rows) {
        const values = [row.emailKey, row.kind, row.at, row.status, row.diagnostic, row.source, row.fingerprint];
        count += this.sql.add.run(userId, ...values, importedAt).changes;
      }
      return count;
    })();
    return { added };
  }

  evidenceFor(userId: number, emails: readonly string[], since = ''): Map<string, EvidenceEvent[]> {
    const keys = evidenceKeys(emails);
    const rows: EvidenceRow[] = [];
    for (let start = 0; start < keys.length; start += KEYS_PER_READ) {
      const part = keys.slice(start, start + KEYS_PER_READ);
      const read = this.connection.prepare<EvidenceRow>(
        `SELECT ${COLUMNS} FROM evidence WHERE user_id = ? AND email_key IN (${part.map(() => '?').join(', ')}) AND at >= ? ORDER BY at DESC, id DESC`,
      );
      rows.push(...read.all(userId, ...part, since));
    }
    return byAddress(rows);
  }

  listEvidence(userId: number, request: EvidencePageRequest): EvidencePage {
    const below = cursorId(request);
    const rows =
      request.email === undefined
        ? this.sql.page.all(userId, below, request.limit + 1)
        : this.sql.pageOf.all(userId, addressKey(request.email), below, request.limit + 1);
    return evidencePage(rows, request.limit);
  }

  evidenceCounts(userId: number): EvidenceCount[] {
    return this.sql.counts.all(userId);
  }

  deleteEvidence(userId: number, selection: EvidenceSelection): number {
    const key = selection.email === undefined ? null : addressKey(selection.email);
    const source = selection.source ?? null;
    const deleted = this.sql.delete.run(userId, key, key, source, source).changes;
    if (deleted > 0) this.connection.forgetDeleted();
    return deleted;
  }

  deleteEvidenceBefore(before: string, limit: number): number {
    const deleted = this.sql.deleteBefore.run(before, limit).changes;
    if (deleted > 0) this.connection.forgetDeleted();
    return deleted;
  }
}

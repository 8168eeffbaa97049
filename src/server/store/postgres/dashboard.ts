import { randomUUID } from 'node:crypto';
import {
  dailyCreditsSql,
  dailyVerdictsSql,
  toDailyCredits,
  toSession,
  toUpload,
  type DailyCreditsRow,
  type SessionRow,
  type UploadRow,
  PENDING_UPLOAD_COLUMNS,
} from '../rows/dashboard.js';
import type { DailyCredits, DailyVerdicts, DashboardSession, ListUpload, NewSession, PendingUpload } from '../model.js';
import type { Database } from './database.js';

/** What the dashboard keeps: sign-in sessions (by the hash of their id) and the list files users upload. */
export class PostgresDashboard {
  constructor(private readonly db: Database) {}

  async createSession(session: NewSession): Promise<void> {
    const now = this.db.timestamp();
    // Signing in is rare next to requests: the moment to forget every session past its expiry.
    await this.db.sql.run('DELETE FROM sessions WHERE expires_at <= $1', [now]);
    await this.db.sql.run('INSERT INTO sessions (id_hash, user_id, csrf_secret, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)', [
      session.idHash,
      session.userId,
      session.csrfSecret,
      now,
      session.expiresAt.toISOString(),
    ]);
  }

  async findSession(idHash: string): Promise<DashboardSession | undefined> {
    const row = await this.db.sql.row<SessionRow>('SELECT * FROM sessions WHERE id_hash = $1 AND expires_at > $2', [idHash, this.db.timestamp()]);
    return row && toSession(row);
  }

  async deleteSession(idHash: string): Promise<void> {
    await this.db.sql.run('DELETE FROM sessions WHERE id_hash = $1', [idHash]);
  }

  createUpload(userId: number, fileName: string, content: Buffer, maxPendingBytes = Infinity): Promise<string | undefined> {
    return this.db.transaction(async (sql) => {
      // The user's row locked: two uploads at once are counted one after the other.
      await sql.run('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [userId]);
      const pending = await sql.row<{ bytes: number }>(
        'SELECT coalesce(sum(length(content)), 0)::bigint::float8 AS bytes FROM list_uploads WHERE user_id = $1 AND job_id IS NULL',
        [userId],
      );
      if (pending!.bytes + content.length > maxPendingBytes) return undefined;
      const id = randomUUID();
      await sql.run('INSERT INTO list_uploads (id, user_id, file_name, content, created_at) VALUES ($1, $2, $3, $4, $5)', [
        id,
        userId,
        fileName,
        content,
        this.db.timestamp(),
      ]);
      return id;
    });
  }

  pendingUploads(userId: number): Promise<PendingUpload[]> {
    return this.db.sql.rows<PendingUpload>(
      `SELECT ${PENDING_UPLOAD_COLUMNS} FROM list_uploads WHERE user_id = $1 AND job_id IS NULL ORDER BY created_at DESC, id`,
      [userId],
    );
  }

  async deleteUpload(userId: number, uploadId: string): Promise<boolean> {
    return (await this.db.sql.run('DELETE FROM list_uploads WHERE id = $1 AND user_id = $2 AND job_id IS NULL', [uploadId, userId])) > 0;
  }

  deleteUploadsBefore(before: string, limit: number): Promise<number> {
    // Locked as they are chosen (SKIP LOCKED): two nodes deleting at once take different ones.
    return this.db.sql.run(
      `DELETE FROM list_uploads WHERE id IN (
         SELECT id FROM list_uploads WHERE job_id IS NULL AND created_at < $1 ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [before, limit],
    );
  }

  async findUpload(userId: number, uploadId: string): Promise<ListUpload | undefined> {
    const row = await this.db.sql.row<UploadRow>('SELECT * FROM list_uploads WHERE id = $1 AND user_id = $2', [uploadId, userId]);
    return row && toUpload(row);
  }

  async findUploadOfJob(userId: number, jobId: string): Promise<ListUpload | undefined> {
    const row = await this.db.sql.row<UploadRow>('SELECT * FROM list_uploads WHERE job_id = $1 AND user_id = $2', [jobId, userId]);
    return row && toUpload(row);
  }

  async attachUploadToJob(userId: number, uploadId: string, jobId: string, column: string): Promise<void> {
    await this.db.sql.run('UPDATE list_uploads SET job_id = $1, column_spec = $2 WHERE id = $3 AND user_id = $4 AND job_id IS NULL', [
      jobId,
      column,
      uploadId,
      userId,
    ]);
  }

  async dailyCredits(userId: number, since: string): Promise<DailyCredits[]> {
    return (await this.db.sql.rows<DailyCreditsRow>(dailyCreditsSql('$1', '$2'), [userId, since])).map(toDailyCredits);
  }

  async dailyVerdicts(userId: number, since: string): Promise<DailyVerdicts[]> {
    const rows = await this.db.sql.rows<{ day: string; verdict: DailyVerdicts['verdict']; count: string }>(
      dailyVerdictsSql("job_items.result::json ->> 'result'", '$1', '$2'),
      [userId, since],
    );
    return rows.map((row) => ({ ...row, count: Number(row.count) }));
  }
}

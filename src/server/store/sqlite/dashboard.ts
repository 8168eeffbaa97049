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
import type { Connection } from './database.js';

/** What the dashboard keeps: sign-in sessions (by the hash of their id) and the list files users upload. */
export class SqliteDashboard {
  private readonly sql;

  constructor(private readonly connection: Connection) {
    const prepare = connection.prepare.bind(connection);
    this.sql = {
      insertSession: prepare('INSERT INTO sessions (id_hash, user_id, csrf_secret, created_at, expires_at) VALUES (?, ?, ?, ?, ?)'),
      liveSession: prepare<SessionRow>('SELECT * FROM sessions WHERE id_hash = ? AND expires_at > ?'),
      deleteSession: prepare('DELETE FROM sessions WHERE id_hash = ?'),
      pruneSessions: prepare('DELETE FROM sessions WHERE expires_at <= ?'),
      insertUpload: prepare('INSERT INTO list_uploads (id, user_id, file_name, content, created_at) VALUES (?, ?, ?, ?, ?)'),
      pendingBytes: prepare<{ bytes: number }>('SELECT coalesce(sum(length(content)), 0) AS bytes FROM list_uploads WHERE user_id = ? AND job_id IS NULL'),
      pendingUploads: prepare<PendingUpload>(
        `SELECT ${PENDING_UPLOAD_COLUMNS} FROM list_uploads WHERE user_id = ? AND job_id IS NULL ORDER BY created_at DESC, id`,
      ),
      deleteUpload: prepare('DELETE FROM list_uploads WHERE id = ? AND user_id = ? AND job_id IS NULL'),
      deleteUploadsBefore: prepare(
        'DELETE FROM list_uploads WHERE id IN (SELECT id FROM list_uploads WHERE job_id IS NULL AND created_at < ? ORDER BY created_at LIMIT ?)',
      ),
      uploadOf: prepare<UploadRow>('SELECT * FROM list_uploads WHERE id = ? AND user_id = ?'),
      uploadOfJob: prepare<UploadRow>('SELECT * FROM list_uploads WHERE job_id = ? AND user_id = ?'),
      attachUpload: prepare('UPDATE list_uploads SET job_id = ?, column_spec = ? WHERE id = ? AND user_id = ? AND job_id IS NULL'),
      dailyCredits: prepare<DailyCreditsRow>(dailyCreditsSql('?', '?')),
      dailyVerdicts: prepare<DailyVerdicts>(dailyVerdictsSql("job_items.result ->> '$.result'", '@user', '@since')),
    };
  }

  createSession(session: NewSession): void {
    const now = this.connection.timestamp();
    // Signing in is rare next to requests: the moment to forget every session past its expiry.
    this.sql.pruneSessions.run(now);
    this.sql.insertSession.run(session.idHash, session.userId, session.csrfSecret, now, session.expiresAt.toISOString());
  }

  findSession(idHash: string): DashboardSession | undefined {
    const row = this.sql.liveSession.get(idHash, this.connection.timestamp());
    return row && toSession(row);
  }

  deleteSession(idHash: string): void {
    this.sql.deleteSession.run(idHash);
  }

  createUpload(userId: number, fileName: string, content: Buffer, maxPendingBytes = Infinity): string | undefined {
    return this.connection.db
      .transaction(() => {
        if (this.sql.pendingBytes.get(userId)!.bytes + content.length > maxPendingBytes) return undefined;
        const id = randomUUID();
        this.sql.insertUpload.run(id, userId, fileName, content, this.connection.timestamp());
        return id;
      })
      .immediate();
  }

  pendingUploads(userId: number): PendingUpload[] {
    return this.sql.pendingUploads.all(userId);
  }

  deleteUpload(userId: number, uploadId: string): boolean {
    const deleted = this.sql.deleteUpload.run(uploadId, userId).changes > 0;
    if (deleted) this.connection.forgetDeleted();
    return deleted;
  }

  deleteUploadsBefore(before: string, limit: number): number {
    const deleted = this.sql.deleteUploadsBefore.run(before, limit).changes;
    if (deleted > 0) this.connection.forgetDeleted();
    return deleted;
  }

  findUpload(userId: number, uploadId: string): ListUpload | undefined {
    const row = this.sql.uploadOf.get(uploadId, userId);
    return row && toUpload(row);
  }

  findUploadOfJob(userId: number, jobId: string): ListUpload | undefined {
    const row = this.sql.uploadOfJob.get(jobId, userId);
    return row && toUpload(row);
  }

  attachUploadToJob(userId: number, uploadId: string, jobId: string, column: string): void {
    this.sql.attachUpload.run(jobId, column, uploadId, userId);
  }

  dailyCredits(userId: number, since: string): DailyCredits[] {
    return this.sql.dailyCredits.all(userId, since).map(toDailyCredits);
  }

  dailyVerdicts(userId: number, since: string): DailyVerdicts[] {
    return this.sql.dailyVerdicts.all({ user: userId, since });
  }
}

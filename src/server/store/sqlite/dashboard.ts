import { randomUUID } from 'node:crypto';
import type { DashboardSession, JobSummary, ListUpload, NewSession } from '../store.js';
import type { Connection } from './database.js';

interface SessionRow {
  id_hash: string;
  user_id: number;
  csrf_secret: string;
  created_at: string;
  expires_at: string;
}

interface UploadRow {
  id: string;
  user_id: number;
  file_name: string;
  content: Buffer;
  column_spec: string | null;
  job_id: string | null;
  created_at: string;
}

interface JobSummaryRow {
  id: string;
  user_id: number;
  total: number;
  processed: number;
  created_at: string;
  completed_at: string | null;
  file_name: string | null;
}

const toSession = (row: SessionRow): DashboardSession => ({
  idHash: row.id_hash,
  userId: row.user_id,
  csrfSecret: row.csrf_secret,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});

const toUpload = (row: UploadRow): ListUpload => ({
  id: row.id,
  userId: row.user_id,
  fileName: row.file_name,
  content: row.content,
  column: row.column_spec,
  jobId: row.job_id,
  createdAt: row.created_at,
});

/** What the dashboard keeps: sign-in sessions (by the hash of their id) and the list files users upload. */
export class DashboardRecords {
  private readonly sql;

  constructor(private readonly connection: Connection) {
    const prepare = connection.prepare.bind(connection);
    this.sql = {
      insertSession: prepare('INSERT INTO sessions (id_hash, user_id, csrf_secret, created_at, expires_at) VALUES (?, ?, ?, ?, ?)'),
      liveSession: prepare<SessionRow>('SELECT * FROM sessions WHERE id_hash = ? AND expires_at > ?'),
      deleteSession: prepare('DELETE FROM sessions WHERE id_hash = ?'),
      pruneSessions: prepare('DELETE FROM sessions WHERE expires_at <= ?'),
      insertUpload: prepare('INSERT INTO list_uploads (id, user_id, file_name, content, created_at) VALUES (?, ?, ?, ?, ?)'),
      uploadOf: prepare<UploadRow>('SELECT * FROM list_uploads WHERE id = ? AND user_id = ?'),
      uploadOfJob: prepare<UploadRow>('SELECT * FROM list_uploads WHERE job_id = ? AND user_id = ?'),
      attachUpload: prepare('UPDATE list_uploads SET job_id = ?, column_spec = ? WHERE id = ? AND user_id = ? AND job_id IS NULL'),
      jobsOf: prepare<JobSummaryRow>(
        `SELECT jobs.*, list_uploads.file_name FROM jobs LEFT JOIN list_uploads ON list_uploads.job_id = jobs.id
         WHERE jobs.user_id = ? ORDER BY jobs.created_at DESC, jobs.id LIMIT ?`,
      ),
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

  createUpload(userId: number, fileName: string, content: Buffer): string {
    const id = randomUUID();
    this.sql.insertUpload.run(id, userId, fileName, content, this.connection.timestamp());
    return id;
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

  listJobs(userId: number, limit: number): JobSummary[] {
    return this.sql.jobsOf.all(userId, limit).map((row) => ({
      id: row.id,
      userId: row.user_id,
      status: row.completed_at === null ? 'processing' : 'completed',
      total: row.total,
      processed: row.processed,
      createdAt: row.created_at,
      fileName: row.file_name,
    }));
  }
}

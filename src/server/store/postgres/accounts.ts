import * as flows from '../flows/credits.js';
import type { CreditSteps, RefundSteps } from '../flows/credits.js';
import { runAwaiting } from '../flows/flow.js';
import { recentLedger, type LedgerPage } from '../flows/ledger.js';
import { toLedger, toUser, type LedgerRow, type UserRow } from '../rows/accounts.js';
import { joinJobRefunds } from '../ledger-lines.js';
import {
  newSessionEpoch,
  StoreError,
  type ChargeOutcome,
  type IdempotencyKey,
  type KeyedCharge,
  type KeyedEnd,
  type LedgerEntry,
  type NewUser,
  type PaidCharge,
  type Refund,
  type User,
} from '../model.js';
import { isUniqueViolation, noSuchUser, type Database, type Statements } from './database.js';
import type { PostgresIdempotency } from './idempotency.js';
import { WORK_CHANNEL, WORK_DELETED } from './changes.js';

/**
 * Users, their credits and the ledger. The balance moves only through conditional UPDATEs (a
 * charge takes credits only `WHERE balance >= amount`), which PostgreSQL evaluates on the row
 * after any concurrent update to it has committed: no interleaving of nodes can overspend.
 */
export class PostgresAccounts {
  constructor(
    private readonly db: Database,
    private readonly idempotency: PostgresIdempotency,
  ) {}

  async createUser(user: NewUser): Promise<User> {
    try {
      return await this.db.transaction(async (sql) => {
        const row = (await sql.row<UserRow>(
          `INSERT INTO users (email, password_hash, balance, rate_limit, rate_window_seconds, created_at)
           VALUES ($1, $2, 0, $3, $4, $5) RETURNING *`,
          [user.email, user.passwordHash, user.rateLimit, user.rateWindowSeconds, this.db.timestamp()],
        ))!;
        if (user.balance === 0) return toUser(row);
        return { ...toUser(row), balance: await this.addCredits(sql, row.id, user.balance) };
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new StoreError('user_exists', `a user ${user.email} exists already`);
      throw error;
    }
  }

  async findUserByEmail(email: string): Promise<User | undefined> {
    const row = await this.db.sql.row<UserRow>('SELECT * FROM users WHERE lower(email) = lower($1)', [email]);
    return row && toUser(row);
  }

  async findUserById(id: number, sql: Statements = this.db.sql): Promise<User | undefined> {
    const row = await sql.row<UserRow>('SELECT * FROM users WHERE id = $1', [id]);
    return row && toUser(row);
  }

  async listUsers(): Promise<User[]> {
    return (await this.db.sql.rows<UserRow>('SELECT * FROM users ORDER BY id')).map(toUser);
  }

  async setRateLimit(userId: number, limit: number, windowSeconds: number): Promise<void> {
    const changed = await this.db.sql.run('UPDATE users SET rate_limit = $1, rate_window_seconds = $2 WHERE id = $3', [limit, windowSeconds, userId]);
    if (changed === 0) throw noSuchUser(userId);
  }

  async setPassword(userId: number, passwordHash: string | null): Promise<void> {
    await this.db.transaction(async (sql) => {
      const changed = await sql.run('UPDATE users SET password_hash = $1, session_epoch = $2 WHERE id = $3', [passwordHash, newSessionEpoch(), userId]);
      if (changed === 0) throw noSuchUser(userId);
      await sql.run('DELETE FROM sessions WHERE user_id = $1', [userId]);
    });
  }

  grantCredits(userId: number, delta: number): Promise<number> {
    return this.db.transaction((sql) => this.addCredits(sql, userId, delta));
  }

  charge(userId: number, amount: number, reason: 'verify', jobId: string | null = null): Promise<ChargeOutcome> {
    return this.db.transaction((sql) => runAwaiting(flows.charge(this.steps(sql), userId, amount, reason, jobId)));
  }

  chargeWithKey(userId: number, amount: number, reason: 'verify', key: IdempotencyKey): Promise<KeyedCharge> {
    return this.db.transaction((sql) => runAwaiting(flows.chargeWithKey(this.steps(sql), userId, amount, reason, key, this.db.now())));
  }

  refund(userId: number, charge: PaidCharge, end?: KeyedEnd): Promise<Refund> {
    return this.db.transaction((sql) => runAwaiting(flows.refund(this.refundSteps(sql), userId, charge, end)));
  }

  /** Credits given back with their ledger row (naming the charge refunded, when one is), on a transaction's connection. */
  async giveBack(sql: Statements, userId: number, amount: number, jobId: string | null, refundOf: number | null = null): Promise<number> {
    const moved = await this.moveCredits(sql, userId, amount);
    if (moved === undefined) throw noSuchUser(userId);
    await this.writeLedger(sql, userId, amount, moved, 'refund', jobId, refundOf);
    return moved;
  }

  async ledger(userId: number, last?: number): Promise<LedgerEntry[]> {
    if (last === undefined) {
      return joinJobRefunds((await this.db.sql.rows<LedgerRow>('SELECT * FROM ledger WHERE user_id = $1 ORDER BY id', [userId])).map(toLedger));
    }
    const page: LedgerPage = (user, beforeId, limit) =>
      this.db.sql.rows<LedgerRow>('SELECT * FROM ledger WHERE user_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3', [user, beforeId, limit]);
    return runAwaiting(recentLedger(page, userId, last));
  }

  deleteUser(userId: number): Promise<boolean> {
    return this.db.transaction(async (sql) => {
      // The result cache names the account that found each verdict without a foreign key; the rest goes with the user (ON DELETE CASCADE).
      await sql.run('DELETE FROM result_cache WHERE user_id = $1', [userId]);
      // Delivered at commit: every node's runner stops asking about the user's addresses at once (Store.onWorkDeleted).
      await sql.run(`SELECT pg_notify('${WORK_CHANNEL}', '${WORK_DELETED}')`);
      return (await sql.run('DELETE FROM users WHERE id = $1', [userId])) > 0;
    });
  }

  /** The statements the shared credit flows run (flows/credits.ts) on a transaction's connection, for this part and the job part. */
  steps(sql: Statements): CreditSteps {
    return {
      lockUser: async (userId) => void (await sql.run('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [userId])),
      balanceOf: async (userId) => (await this.findUserById(userId, sql))?.balance,
      takeCredits: async (userId, amount, reason, jobId) => {
        const taken = await sql.row<{ balance: number }>('UPDATE users SET balance = balance - $1 WHERE id = $2 AND balance >= $1 RETURNING balance', [
          amount,
          userId,
        ]);
        if (!taken) return undefined;
        return { balance: taken.balance, chargeId: await this.writeLedger(sql, userId, -amount, taken.balance, reason, jobId) };
      },
      keyRecord: (userId, key) => this.idempotency.liveKey(sql, userId, key),
      writeKey: (record) => this.idempotency.writeIdempotency(sql, record),
    };
  }

  private refundSteps(sql: Statements): RefundSteps {
    return {
      ...this.steps(sql),
      isRefunded: async (chargeId) => (await sql.row('SELECT 1 FROM ledger WHERE refund_of = $1', [chargeId])) !== undefined,
      giveBack: (userId, amount, refundOf) => this.giveBack(sql, userId, amount, null, refundOf),
      releaseClaim: (userId, key) => this.idempotency.releaseClaim(sql, userId, key),
    };
  }

  /** An admin's grant (or removal): never below zero. */
  private async addCredits(sql: Statements, userId: number, delta: number): Promise<number> {
    const moved = await this.moveCredits(sql, userId, delta);
    if (moved === undefined) {
      const user = await this.findUserById(userId, sql);
      if (!user) throw noSuchUser(userId);
      throw new StoreError('negative_balance', `the balance is ${user.balance}; removing ${-delta} would take it below zero`);
    }
    await this.writeLedger(sql, userId, delta, moved, 'grant', null);
    return moved;
  }

  /** Adds `delta` unless that would take the balance below zero; the new balance, or undefined. */
  private async moveCredits(sql: Statements, userId: number, delta: number): Promise<number | undefined> {
    const moved = await sql.row<{ balance: number }>('UPDATE users SET balance = balance + $1 WHERE id = $2 AND balance + $1 >= 0 RETURNING balance', [
      delta,
      userId,
    ]);
    return moved?.balance;
  }

  /** Writes a ledger row; its id. */
  private async writeLedger(
    sql: Statements,
    userId: number,
    delta: number,
    balanceAfter: number,
    reason: LedgerEntry['reason'],
    jobId: string | null,
    refundOf: number | null = null,
  ): Promise<number> {
    const row = await sql.row<{ id: number }>(
      'INSERT INTO ledger (user_id, delta, balance_after, reason, job_id, created_at, refund_of) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id',
      [userId, delta, balanceAfter, reason, jobId, this.db.timestamp(), refundOf],
    );
    return Number(row!.id);
  }
}

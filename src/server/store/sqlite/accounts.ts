import * as flows from '../flows/credits.js';
import type { CreditSteps, RefundSteps } from '../flows/credits.js';
import { runNow } from '../flows/flow.js';
import { recentLedger } from '../flows/ledger.js';
import { toLedger, toUser, type UserRow, type LedgerRow } from '../rows/accounts.js';
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
import type { Connection } from './database.js';
import type { SqliteIdempotency } from './idempotency.js';

/** Users, their credits and the ledger of every move of credits. */
export class SqliteAccounts {
  private readonly sql;
  /** The statements the shared credit flows run (flows/credits.ts), for this part and the job part. */
  readonly steps: CreditSteps;
  private readonly refundSteps: RefundSteps;

  constructor(
    private readonly connection: Connection,
    private readonly idempotency: SqliteIdempotency,
  ) {
    const prepare = connection.prepare.bind(connection);
    this.sql = {
      insertUser: prepare<UserRow>(
        `INSERT INTO users (email, password_hash, balance, rate_limit, rate_window_seconds, created_at)
         VALUES (?, ?, 0, ?, ?, ?) RETURNING *`,
      ),
      userByEmail: prepare<UserRow>('SELECT * FROM users WHERE email = ?'),
      userById: prepare<UserRow>('SELECT * FROM users WHERE id = ?'),
      allUsers: prepare<UserRow>('SELECT * FROM users ORDER BY id'),
      setRateLimit: prepare('UPDATE users SET rate_limit = ?, rate_window_seconds = ? WHERE id = ?'),
      setPassword: prepare('UPDATE users SET password_hash = ?, session_epoch = ? WHERE id = ?'),
      endSessions: prepare('DELETE FROM sessions WHERE user_id = ?'),
      // The balance moves only through these two conditional updates: neither can take it below zero.
      addCredits: prepare<{ balance: number }>('UPDATE users SET balance = balance + ? WHERE id = ? AND balance + ? >= 0 RETURNING balance'),
      takeCredits: prepare<{ balance: number }>('UPDATE users SET balance = balance - ? WHERE id = ? AND balance >= ? RETURNING balance'),
      insertLedger: prepare('INSERT INTO ledger (user_id, delta, balance_after, reason, job_id, created_at, refund_of) VALUES (?, ?, ?, ?, ?, ?, ?)'),
      refundOf: prepare<{ id: number }>('SELECT id FROM ledger WHERE refund_of = ?'),
      ledgerOf: prepare<LedgerRow>('SELECT * FROM ledger WHERE user_id = ? ORDER BY id'),
      ledgerBefore: prepare<LedgerRow>('SELECT * FROM ledger WHERE user_id = ? AND id < ? ORDER BY id DESC LIMIT ?'),
    };
    this.steps = {
      // The IMMEDIATE transaction every flow runs in holds the whole file already.
      lockUser: () => undefined,
      balanceOf: (userId) => this.sql.userById.get(userId)?.balance,
      takeCredits: (userId, amount, reason, jobId) => {
        const taken = this.sql.takeCredits.get(amount, userId, amount);
        if (!taken) return undefined;
        return { balance: taken.balance, chargeId: this.writeLedger(userId, -amount, taken.balance, reason, jobId) };
      },
      keyRecord: (userId, key) => idempotency.liveKey(userId, key),
      writeKey: (record) => idempotency.writeIdempotency(record),
    };
    this.refundSteps = {
      ...this.steps,
      isRefunded: (chargeId) => this.sql.refundOf.get(chargeId) !== undefined,
      giveBack: (userId, amount, refundOf) => this.giveBack(userId, amount, null, refundOf),
      releaseClaim: (userId, key) => idempotency.releaseClaim(userId, key),
    };
  }

  createUser(user: NewUser): User {
    return this.connection.db
      .transaction(() => {
        if (this.findUserByEmail(user.email)) throw new StoreError('user_exists', `a user ${user.email} exists already`);
        const row = this.sql.insertUser.get(user.email, user.passwordHash, user.rateLimit, user.rateWindowSeconds, this.connection.timestamp())!;
        if (user.balance === 0) return toUser(row);
        return { ...toUser(row), balance: this.grantCredits(row.id, user.balance) };
      })
      .immediate();
  }

  findUserByEmail(email: string): User | undefined {
    const row = this.sql.userByEmail.get(email);
    return row && toUser(row);
  }

  findUserById(id: number): User | undefined {
    const row = this.sql.userById.get(id);
    return row && toUser(row);
  }

  listUsers(): User[] {
    return this.sql.allUsers.all().map(toUser);
  }

  setRateLimit(userId: number, limit: number, windowSeconds: number): void {
    const { changes } = this.sql.setRateLimit.run(limit, windowSeconds, userId);
    if (changes === 0) throw new StoreError('user_not_found', `no user with id ${userId}`);
  }

  setPassword(userId: number, passwordHash: string | null): void {
    this.connection.db
      .transaction(() => {
        const { changes } = this.sql.setPassword.run(passwordHash, newSessionEpoch(), userId);
        if (changes === 0) throw new StoreError('user_not_found', `no user with id ${userId}`);
        this.sql.endSessions.run(userId);
      })
      .immediate();
  }

  grantCredits(userId: number, delta: number): number {
    return this.connection.db
      .transaction(() => {
        const moved = this.sql.addCredits.get(delta, userId, delta);
        if (!moved) {
          const user = this.findUserById(userId);
          if (!user) throw new StoreError('user_not_found', `no user with id ${userId}`);
          throw new StoreError('negative_balance', `the balance is ${user.balance}; removing ${-delta} would take it below zero`);
        }
        this.writeLedger(userId, delta, moved.balance, 'grant', null);
        return moved.balance;
      })
      .immediate();
  }

  charge(userId: number, amount: number, reason: 'verify', jobId: string | null = null): ChargeOutcome {
    return this.connection.db.transaction(() => runNow(flows.charge(this.steps, userId, amount, reason, jobId))).immediate();
  }

  chargeWithKey(userId: number, amount: number, reason: 'verify', key: IdempotencyKey): KeyedCharge {
    return this.connection.db.transaction(() => runNow(flows.chargeWithKey(this.steps, userId, amount, reason, key, this.connection.now()))).immediate();
  }

  refund(userId: number, charge: PaidCharge, end?: KeyedEnd): Refund {
    return this.connection.db.transaction(() => runNow(flows.refund(this.refundSteps, userId, charge, end))).immediate();
  }

  /** Credits given back with their ledger row (naming the charge refunded, when one is); call inside a transaction. */
  giveBack(userId: number, amount: number, jobId: string | null, refundOf: number | null = null): number {
    const moved = this.sql.addCredits.get(amount, userId, amount);
    if (!moved) throw new StoreError('user_not_found', `no user with id ${userId}`);
    this.writeLedger(userId, amount, moved.balance, 'refund', jobId, refundOf);
    return moved.balance;
  }

  ledger(userId: number, last?: number): LedgerEntry[] {
    if (last === undefined) return joinJobRefunds(this.sql.ledgerOf.all(userId).map(toLedger));
    return runNow(recentLedger((user, beforeId, limit) => this.sql.ledgerBefore.all(user, beforeId, limit), userId, last));
  }

  deleteUser(userId: number): boolean {
    const deleted = this.connection.db
      .transaction(() => {
        // The result cache names the account that found each verdict without a foreign key; the rest goes with the user (ON DELETE CASCADE).
        this.connection.db.prepare('DELETE FROM result_cache WHERE user_id = ?').run(userId);
        this.connection.db.prepare('DELETE FROM job_items WHERE job_id IN (SELECT id FROM jobs WHERE user_id = ?)').run(userId);
        return this.connection.db.prepare('DELETE FROM users WHERE id = ?').run(userId).changes > 0;
      })
      .immediate();
    if (deleted) {
      this.connection.forgetDeleted();
      this.connection.workDeleted();
    }
    return deleted;
  }

  /** Writes a ledger row; its id. */
  private writeLedger(
    userId: number,
    delta: number,
    balanceAfter: number,
    reason: LedgerEntry['reason'],
    jobId: string | null,
    refundOf: number | null = null,
  ): number {
    return Number(this.sql.insertLedger.run(userId, delta, balanceAfter, reason, jobId, this.connection.timestamp(), refundOf).lastInsertRowid);
  }
}

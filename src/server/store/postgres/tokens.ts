import { randomUUID } from 'node:crypto';
import { lastUseIsStale, scopesColumn, toToken, type TokenRow } from '../rows/tokens.js';
import { FULL_GRANT, type ApiToken, type TokenGrant } from '../model.js';
import { isForeignKeyViolation, noSuchUser, type Database, type Statements } from './database.js';

/** API tokens, kept as SHA-256 hashes. */
export class PostgresTokens {
  constructor(private readonly db: Database) {}

  async createApiToken(userId: number, name: string, tokenHash: string, grant: TokenGrant = FULL_GRANT): Promise<ApiToken> {
    try {
      return await this.insertToken(this.db.sql, userId, name, tokenHash, grant);
    } catch (error) {
      if (isForeignKeyViolation(error)) throw noSuchUser(userId);
      throw error;
    }
  }

  /** The insert of a new token, on the pool or inside another part's transaction (a device's approved login). */
  async insertToken(sql: Statements, userId: number, name: string, tokenHash: string, grant: TokenGrant): Promise<ApiToken> {
    const row = await sql.row<TokenRow>(
      'INSERT INTO api_tokens (id, user_id, name, token_hash, created_at, scopes, expires_at, test) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *',
      [randomUUID(), userId, name, tokenHash, this.db.timestamp(), scopesColumn(grant), grant.expiresAt, grant.test ?? false],
    );
    return toToken(row!);
  }

  async findApiTokenByHash(tokenHash: string): Promise<ApiToken | undefined> {
    const row = await this.db.sql.row<TokenRow>('SELECT * FROM api_tokens WHERE token_hash = $1 AND revoked_at IS NULL', [tokenHash]);
    if (!row) return undefined;
    const now = this.db.now();
    if (lastUseIsStale(row.last_used_at, now)) {
      row.last_used_at = now.toISOString();
      await this.db.sql.run('UPDATE api_tokens SET last_used_at = $1 WHERE id = $2', [row.last_used_at, row.id]);
    }
    return toToken(row);
  }

  async listApiTokens(userId: number): Promise<ApiToken[]> {
    const rows = await this.db.sql.rows<TokenRow>('SELECT * FROM api_tokens WHERE user_id = $1 AND revoked_at IS NULL ORDER BY created_at, id', [userId]);
    return rows.map(toToken);
  }

  async revokeApiToken(userId: number, tokenId: string): Promise<boolean> {
    const revoked = await this.db.sql.run('UPDATE api_tokens SET revoked_at = $1 WHERE id = $2 AND user_id = $3 AND revoked_at IS NULL', [
      this.db.timestamp(),
      tokenId,
      userId,
    ]);
    return revoked > 0;
  }
}

import { randomUUID } from 'node:crypto';
import { lastUseIsStale, scopesColumn, toToken, type TokenRow } from '../rows/tokens.js';
import { FULL_GRANT, StoreError, type ApiToken, type TokenGrant } from '../model.js';
import type { Connection } from './database.js';
import type { SqliteAccounts } from './accounts.js';

/** API tokens, kept as SHA-256 hashes. */
export class SqliteTokens {
  private readonly sql;

  constructor(
    private readonly connection: Connection,
    private readonly users: SqliteAccounts,
  ) {
    const prepare = connection.prepare.bind(connection);
    this.sql = {
      insertToken: prepare<TokenRow>(
        'INSERT INTO api_tokens (id, user_id, name, token_hash, created_at, scopes, expires_at, test) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *',
      ),
      liveTokenByHash: prepare<TokenRow>('SELECT * FROM api_tokens WHERE token_hash = ? AND revoked_at IS NULL'),
      touchToken: prepare('UPDATE api_tokens SET last_used_at = ? WHERE id = ?'),
      liveTokensOf: prepare<TokenRow>('SELECT * FROM api_tokens WHERE user_id = ? AND revoked_at IS NULL ORDER BY created_at, id'),
      revokeToken: prepare('UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND user_id = ? AND revoked_at IS NULL'),
    };
  }

  createApiToken(userId: number, name: string, tokenHash: string, grant: TokenGrant = FULL_GRANT): ApiToken {
    if (!this.users.findUserById(userId)) throw new StoreError('user_not_found', `no user with id ${userId}`);
    const row = this.sql.insertToken.get(
      randomUUID(),
      userId,
      name,
      tokenHash,
      this.connection.timestamp(),
      scopesColumn(grant),
      grant.expiresAt,
      grant.test ? 1 : 0,
    );
    return toToken(row!);
  }

  findApiTokenByHash(tokenHash: string): ApiToken | undefined {
    const row = this.sql.liveTokenByHash.get(tokenHash);
    if (!row) return undefined;
    const now = this.connection.now();
    if (lastUseIsStale(row.last_used_at, now)) {
      row.last_used_at = now.toISOString();
      this.sql.touchToken.run(row.last_used_at, row.id);
    }
    return toToken(row);
  }

  listApiTokens(userId: number): ApiToken[] {
    return this.sql.liveTokensOf.all(userId).map(toToken);
  }

  revokeApiToken(userId: number, tokenId: string): boolean {
    return this.sql.revokeToken.run(this.connection.timestamp(), tokenId, userId).changes > 0;
  }
}

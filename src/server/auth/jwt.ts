import { SignJWT, jwtVerify } from 'jose';

/** docs/api.md: login tokens are HS256 JWTs valid for one hour. */
export const JWT_TTL_SECONDS = 60 * 60;
const ISSUER = 'mailverify';

export interface IssuedJwt {
  token: string;
  expiresAt: Date;
}

export interface JwtIssuer {
  issue(userId: number): Promise<IssuedJwt>;
  /** The user id of a JWT of ours that is unexpired and untampered, else undefined. */
  verify(token: string): Promise<number | undefined>;
}

export async function createJwtIssuer(secret: Uint8Array, ttlSeconds = JWT_TTL_SECONDS): Promise<JwtIssuer> {
  // Imported once: jose would otherwise import the raw secret again on every request.
  const key = await crypto.subtle.importKey('raw', secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
  return {
    async issue(userId) {
      const issuedAt = Math.floor(Date.now() / 1000);
      const expiresAt = issuedAt + ttlSeconds;
      const token = await new SignJWT()
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(String(userId))
        .setIssuer(ISSUER)
        .setIssuedAt(issuedAt)
        .setExpirationTime(expiresAt)
        .sign(key);
      return { token, expiresAt: new Date(expiresAt * 1000) };
    },
    async verify(token) {
      try {
        const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'], issuer: ISSUER, requiredClaims: ['sub', 'exp'] });
        const userId = Number(payload.sub);
        return Number.isSafeInteger(userId) ? userId : undefined;
      } catch {
        // Expired, forged, garbled: all the same to the caller, a 401.
        return undefined;
      }
    },
  };
}

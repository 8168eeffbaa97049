import { SignJWT, jwtVerify } from 'jose';

/** docs/api.md: login tokens are HS256 JWTs valid for one hour. */
const JWT_TTL_SECONDS = 60 * 60;
const ISSUER = 'mailverify';

export interface IssuedJwt {
  token: string;
  expiresAt: Date;
}

/** Whom a login JWT names: the user, and the user's session epoch when it was issued (User.sessionEpoch). */
export interface JwtSubject {
  userId: number;
  sessionEpoch: string;
}

/** The private claim that carries the session epoch. */
const EPOCH_CLAIM = 'epoch';

export interface JwtIssuer {
  issue(subject: JwtSubject): Promise<IssuedJwt>;
  /** Whom a JWT of ours names, when it is unexpired and untampered, else undefined. */
  verify(token: string): Promise<JwtSubject | undefined>;
}

export async function createJwtIssuer(secret: Uint8Array, ttlSeconds = JWT_TTL_SECONDS): Promise<JwtIssuer> {
  // Imported once: jose would otherwise import the raw secret again on every request.
  const key = await crypto.subtle.importKey('raw', secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
  return {
    async issue({ userId, sessionEpoch }) {
      const issuedAt = Math.floor(Date.now() / 1000);
      const expiresAt = issuedAt + ttlSeconds;
      const token = await new SignJWT({ [EPOCH_CLAIM]: sessionEpoch })
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
        // A JWT without an epoch (issued before epochs) names no sign-in that still holds.
        const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'], issuer: ISSUER, requiredClaims: ['sub', 'exp', EPOCH_CLAIM] });
        const userId = Number(payload.sub);
        const sessionEpoch = payload[EPOCH_CLAIM];
        return Number.isSafeInteger(userId) && typeof sessionEpoch === 'string' ? { userId, sessionEpoch } : undefined;
      } catch {
        // Expired, forged, garbled: all the same to the caller, a 401.
        return undefined;
      }
    },
  };
}

import { Injectable } from '@nestjs/common';
import { createECDH, createHash, createPrivateKey, createPublicKey, hkdfSync, KeyObject } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, type JWK, SignJWT } from 'jose';
import { AppConfig } from '@app/config';
import { admissionInvalid } from './queue-errors';

/** The `iss` of every admission pass. */
const ISSUER = 'seat-hold';

/** What a hold's gate needs of a pass: the queue entry it was issued for (its `jti`). */
export interface PassClaims {
  entryId: string;
}

/**
 * Admission passes: the JWT a shopper gets when their turn in an event's queue comes (aud = the event,
 * sub = the user, jti = the queue entry, exp = the end of their shopping window), signed ES256 with a `kid`,
 * so other services check them with the public key /.well-known/jwks.json serves.
 *
 * This service does not check a pass's signature at its own gate: it keeps the very pass it issued with the
 * entry in Redis, and the hold script takes a hold only with that pass, for that user, still admitted and
 * unexpired by Redis time (lua/queue.lua q_gate). That is exact (a pass whose turn has ended is refused,
 * which a signature cannot tell) and costs a string compare, where an ECDSA check would cost far more per
 * hold than the hold itself. Here a pass is only read for what it names (aud, sub, jti), before Redis.
 */
@Injectable()
export class AdmissionPasses {
  private readonly privateKey: KeyObject;
  readonly kid: string;
  private readonly jwk: JWK;

  constructor(config: AppConfig) {
    this.privateKey = config.queue.passPrivateKeyPem
      ? createPrivateKey(config.queue.passPrivateKeyPem)
      : derivedKey(config.auth.jwtSecret);
    if (
      this.privateKey.asymmetricKeyType !== 'ec' ||
      this.privateKey.asymmetricKeyDetails?.namedCurve !== 'prime256v1'
    ) {
      throw new Error('QUEUE_PASS_PRIVATE_KEY must be a P-256 (prime256v1) EC private key');
    }
    const pub = createPublicKey(this.privateKey).export({ format: 'jwk' }) as JWK;
    this.kid = createHash('sha256').update(`${pub.x}.${pub.y}`).digest('base64url').slice(0, 16);
    this.jwk = { kty: 'EC', crv: 'P-256', x: pub.x, y: pub.y, kid: this.kid, alg: 'ES256', use: 'sig' };
  }

  /** The public key set (RFC 7517) passes are checked with. */
  get jwks(): { keys: JWK[] } {
    return { keys: [this.jwk] };
  }

  /** Signs the pass of `entryId` (user `userId`, event `eventId`), good until `expiresAtMs`. */
  sign(eventId: string, userId: string, entryId: string, expiresAtMs: number): Promise<string> {
    return new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: this.kid, typ: 'JWT' })
      .setIssuer(ISSUER)
      .setAudience(eventId)
      .setSubject(userId)
      .setJti(entryId)
      .setIssuedAt()
      .setExpirationTime(Math.floor(expiresAtMs / 1000))
      .sign(this.privateKey);
  }

  /**
   * What a pass names, for a hold of `userId` on `eventId`: refused 403 ADMISSION_INVALID when it is not
   * a pass of ours, or is another event's or another user's. Whether it is the one issued, and still good,
   * the hold script decides.
   */
  claimsFor(pass: string, eventId: string, userId: string): PassClaims {
    let claims: ReturnType<typeof decodeJwt>;
    try {
      if (decodeProtectedHeader(pass).kid !== this.kid) {
        throw new Error('another key');
      }
      claims = decodeJwt(pass);
    } catch {
      throw admissionInvalid('The Queue-Pass header is not an admission pass of this service');
    }
    if (claims.aud !== eventId) {
      throw admissionInvalid('This admission pass is for another event');
    }
    if (claims.sub !== userId || typeof claims.jti !== 'string') {
      throw admissionInvalid('This admission pass was not issued for you');
    }
    return { entryId: claims.jti };
  }
}

/**
 * A P-256 key derived from AUTH_JWT_SECRET (HKDF-SHA-256): the same on every instance with no key of its
 * own to deploy. The derived 32 bytes are the private scalar, taken again with a counter in the rare case
 * they are not below the curve's order.
 */
function derivedKey(secret: string): KeyObject {
  for (let i = 0; ; i++) {
    const d = Buffer.from(hkdfSync('sha256', secret, 'seat-hold', `queue-admission-pass:${i}`, 32));
    try {
      const ecdh = createECDH('prime256v1');
      ecdh.setPrivateKey(d);
      const point = ecdh.getPublicKey();
      return createPrivateKey({
        format: 'jwk',
        key: {
          kty: 'EC',
          crv: 'P-256',
          d: d.toString('base64url'),
          x: point.subarray(1, 33).toString('base64url'),
          y: point.subarray(33, 65).toString('base64url'),
        },
      });
    } catch {
      // not a valid scalar (zero or past the order): the next derivation
    }
  }
}

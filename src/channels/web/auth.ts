import { timingSafeEqual } from 'node:crypto';
import { parse as parseCookie } from 'cookie';
import type { Clock } from '../../core/clock.js';
import { WindowLimiter } from '../../core/window-limiter.js';

export const TOKEN_COOKIE = 'agent_bridge_token';
/** Bad tokens allowed per address per minute before it is refused outright. */
const BAD_TOKENS_PER_MINUTE = 10;

export type AuthResult = 'ok' | 'missing' | 'wrong' | 'throttled';

/** Where a request's token came from: a Bearer header is a script's (browsers cannot send it cross-origin). */
export type Credential = { token: string; via: 'bearer' | 'cookie' | 'url' } | null;

/**
 * The web UI's access token, compared in constant time, from the cookie or an `Authorization: Bearer` header
 * (or, at the exchange, the URL's `?token=`). Addresses that keep guessing are throttled.
 */
export class TokenGuard {
  private readonly failures: WindowLimiter;
  private readonly expected: Buffer;

  constructor(token: string, clock: Clock) {
    this.expected = Buffer.from(token);
    this.failures = new WindowLimiter(BAD_TOKENS_PER_MINUTE, 60_000, clock);
  }

  check(credential: Credential, ip: string): AuthResult {
    // An address that keeps guessing is refused outright for the rest of the minute, right token or not.
    if (this.failures.exhausted(ip)) return 'throttled';
    if (!credential) return 'missing';
    if (this.matches(credential.token)) return 'ok';
    this.failures.allow(ip);
    return 'wrong';
  }

  private matches(presented: string): boolean {
    const given = Buffer.from(presented);
    return given.length === this.expected.length && timingSafeEqual(given, this.expected);
  }
}

/** The token a request presents: the Authorization header first, else the cookie. */
export function presentedCredential(headers: Record<string, string | string[] | undefined>): Credential {
  const authorization = headers.authorization;
  if (authorization !== undefined) {
    const token = /^Bearer (\S+)$/.exec(Array.isArray(authorization) ? '' : authorization)?.[1];
    // A malformed Authorization header is a wrong token, not a reason to fall back to the cookie.
    return { token: token ?? '', via: 'bearer' };
  }
  const cookie = headers.cookie;
  const value = Array.isArray(cookie) ? cookie.join('; ') : cookie;
  const token = value ? parseCookie(value)[TOKEN_COOKIE] : undefined;
  return token === undefined ? null : { token, via: 'cookie' };
}

import { timingSafeEqual } from 'node:crypto';
import { parse as parseCookie } from 'cookie';
import type { Clock } from '../../core/clock.js';
import { WindowLimiter } from '../../core/window-limiter.js';

export const TOKEN_COOKIE = 'agent_bridge_token';
/** Bad tokens an address may send per minute; past that its bad tokens are refused as throttled (429). */
const BAD_TOKENS_PER_MINUTE = 10;

export type AuthResult = 'ok' | 'missing' | 'wrong' | 'throttled';

/** Where a request's token came from: a Bearer header is a script's (browsers cannot send it cross-origin). */
export type Credential = { token: string; via: 'bearer' | 'cookie' | 'url' } | null;

/**
 * The web UI's access token, compared in constant time. The right token always works, whoever else is
 * guessing from the same address: only failures are counted and throttled, so a flood of bad tokens cannot
 * lock the owner out.
 */
export class TokenGuard {
  private readonly failures: WindowLimiter;
  private readonly expected: Buffer;

  constructor(token: string, clock: Clock) {
    this.expected = Buffer.from(token);
    this.failures = new WindowLimiter(BAD_TOKENS_PER_MINUTE, 60_000, clock);
  }

  check(credential: Credential, ip: string): AuthResult {
    if (!credential) return 'missing';
    if (this.matches(credential.token)) return 'ok';
    return this.failures.allow(ip) ? 'wrong' : 'throttled';
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

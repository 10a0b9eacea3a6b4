import { timingSafeEqual } from 'node:crypto';
import { parse as parseCookie } from 'cookie';
import type { Clock } from '../../core/clock.js';
import { WindowLimiter } from '../../core/window-limiter.js';

export const TOKEN_COOKIE = 'agent_bridge_token';
/** Bad tokens allowed per address per minute before it is refused outright. */
const BAD_TOKENS_PER_MINUTE = 10;

export type AuthResult = 'ok' | 'missing' | 'wrong' | 'throttled';

/**
 * The web UI's access token: compared in constant time, from the cookie or an `Authorization: Bearer`
 * header (or, once, the URL's `?token=`). Addresses that keep guessing are throttled.
 */
export class TokenGuard {
  private readonly failures: WindowLimiter;
  private readonly expected: Buffer;

  constructor(token: string, clock: Clock) {
    this.expected = Buffer.from(token);
    this.failures = new WindowLimiter(BAD_TOKENS_PER_MINUTE, 60_000, clock);
  }

  check(
    request: { headers: Record<string, string | string[] | undefined>; ip: string },
    urlToken?: string,
  ): AuthResult {
    // An address that keeps guessing is refused outright for the rest of the minute, right token or not.
    if (this.failures.exhausted(request.ip)) return 'throttled';
    const presented =
      urlToken ?? bearer(request.headers.authorization) ?? cookieToken(request.headers.cookie);
    if (!presented) return 'missing';
    if (this.matches(presented)) return 'ok';
    this.failures.allow(request.ip);
    return 'wrong';
  }

  private matches(presented: string): boolean {
    const given = Buffer.from(presented);
    return given.length === this.expected.length && timingSafeEqual(given, this.expected);
  }
}

function bearer(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  return /^Bearer (\S+)$/.exec(value ?? '')?.[1];
}

function cookieToken(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header.join('; ') : header;
  return value ? parseCookie(value)[TOKEN_COOKIE] : undefined;
}

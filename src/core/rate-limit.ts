import type { Clock } from './clock.js';

/**
 * Inbound message rate limits (seed 000): a token bucket per user and one per channel. A message must pass the
 * user's bucket (checked first) and then its channel's; a refused message takes no token from either, so being
 * throttled by the channel does not also spend the user's allowance. Terminal input (no user id, or 'terminal')
 * is exempt from the user limit but not from the channel one.
 *
 * Two implementations share the RateLimiter interface:
 * - TokenBucketLimiter (here, the default): exact token buckets on the injected Clock, so tests need no sleeps.
 * - FlexibleLimiter (src/sessions/flexible-rate-limit.ts): rate-limiter-flexible, for when limits must be shared
 *   across processes or machines through a store such as Redis. It lives outside src/core because that library
 *   reads the wall clock and sets its own timers (it takes no custom clock), and its entry point loads Node's
 *   cluster IPC and the network-store backends: it is not pure.
 */

export interface BucketLimit {
  /** Tokens added per second. */
  ratePerSec: number;
  /** Bucket size: how many messages may arrive at once after a quiet spell. */
  burst: number;
}

export interface RateLimits {
  user: BucketLimit;
  channel: BucketLimit;
}

export const DEFAULT_RATE_LIMITS: RateLimits = {
  user: { ratePerSec: 0.5, burst: 3 },
  channel: { ratePerSec: 2, burst: 10 },
};

export interface RateRequest {
  /** Who sent it; empty, missing or 'terminal' for the local terminal. */
  userId?: string | undefined;
  /** Where it arrived, e.g. `telegram:123456` or `terminal`. */
  channelKey: string;
}

export type RateScope = 'user' | 'channel';

export type RateDecision = { allowed: true } | { allowed: false; scope: RateScope; retryAfterMs: number };

export interface RateLimiter {
  /** Decides one message and, when it is allowed, counts it. */
  check(request: RateRequest): RateDecision | Promise<RateDecision>;
}

export const TERMINAL_USER = 'terminal';

/** Terminal input bypasses the per-user limit (seed 000: the terminal has no author id). */
export function isTerminalUser(userId: string | undefined): boolean {
  return userId === undefined || userId === '' || userId === TERMINAL_USER;
}

export function resolveRateLimits(overrides: Partial<RateLimits> = {}): RateLimits {
  const limits = { ...DEFAULT_RATE_LIMITS, ...overrides };
  for (const [scope, limit] of Object.entries(limits)) {
    if (!(limit.ratePerSec > 0) || !Number.isFinite(limit.ratePerSec))
      throw new RangeError(`${scope} rate must be a positive number of messages per second`);
    if (!Number.isInteger(limit.burst) || limit.burst < 1)
      throw new RangeError(`${scope} burst must be a whole number of at least 1`);
  }
  return limits;
}

interface Bucket {
  tokens: number;
  at: number;
}

/** Floating-point slack so a bucket refilled for exactly retryAfterMs counts as holding a whole token. */
const EPSILON = 1e-9;
/** Every this many checks, buckets that have refilled completely are dropped (a full bucket = no bucket). */
const PRUNE_EVERY = 1_024;

/** Keyed token buckets on an injected clock. */
class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly limit: BucketLimit) {}

  /** Tokens in `key`'s bucket at `now` (without taking any). */
  level(key: string, now: number): number {
    const bucket = this.buckets.get(key);
    if (!bucket) return this.limit.burst;
    const elapsedSec = Math.max(0, now - bucket.at) / 1_000;
    return Math.min(this.limit.burst, bucket.tokens + elapsedSec * this.limit.ratePerSec);
  }

  /** 0 when a token is available at `now`, else the milliseconds until one is. */
  waitMs(key: string, now: number): number {
    const missing = 1 - this.level(key, now);
    return missing <= EPSILON ? 0 : Math.ceil((missing / this.limit.ratePerSec) * 1_000);
  }

  take(key: string, now: number): void {
    this.buckets.set(key, { tokens: Math.max(0, this.level(key, now) - 1), at: now });
  }

  prune(now: number): void {
    for (const key of this.buckets.keys()) {
      if (this.level(key, now) >= this.limit.burst - EPSILON) this.buckets.delete(key);
    }
  }

  get size(): number {
    return this.buckets.size;
  }
}

export class TokenBucketLimiter implements RateLimiter {
  private readonly users: TokenBuckets;
  private readonly channels: TokenBuckets;
  private checks = 0;

  constructor(
    private readonly clock: Clock,
    limits: Partial<RateLimits> = {},
  ) {
    const resolved = resolveRateLimits(limits);
    this.users = new TokenBuckets(resolved.user);
    this.channels = new TokenBuckets(resolved.channel);
  }

  check(request: RateRequest): RateDecision {
    const now = this.clock.now();
    if (++this.checks % PRUNE_EVERY === 0) {
      this.users.prune(now);
      this.channels.prune(now);
    }
    const userKey = isTerminalUser(request.userId) ? undefined : request.userId;
    if (userKey !== undefined) {
      const wait = this.users.waitMs(userKey, now);
      if (wait > 0) return { allowed: false, scope: 'user', retryAfterMs: wait };
    }
    const wait = this.channels.waitMs(request.channelKey, now);
    if (wait > 0) return { allowed: false, scope: 'channel', retryAfterMs: wait };
    if (userKey !== undefined) this.users.take(userKey, now);
    this.channels.take(request.channelKey, now);
    return { allowed: true };
  }

  /** Buckets held per scope; full ones are dropped every 1,024 checks (for tests and diagnostics). */
  get trackedKeys(): { users: number; channels: number } {
    return { users: this.users.size, channels: this.channels.size };
  }
}

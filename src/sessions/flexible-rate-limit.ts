import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import {
  isTerminalUser,
  resolveRateLimits,
  type BucketLimit,
  type RateDecision,
  type RateLimiter,
  type RateLimits,
  type RateRequest,
} from '../core/rate-limit.js';

/**
 * The RateLimiter interface on rate-limiter-flexible, for limits shared across processes or machines: pass
 * limiters backed by a shared store (RateLimiterRedis, RateLimiterPostgres, …) built with flexibleOptions().
 *
 * Why here and not in src/core: rate-limiter-flexible reads Date.now() and sets real timers (it accepts no
 * custom clock), and importing it loads Node's cluster IPC and its network-store backends, so it is not pure.
 * The default limiter is core's TokenBucketLimiter on the injected clock; this adapter is for a shared store.
 *
 * The library counts points in fixed windows rather than refilling a bucket, so a token bucket of `burst`
 * tokens refilled at `ratePerSec` becomes `burst` points per `burst / ratePerSec` seconds: the same burst and
 * the same long-run rate, though up to two bursts can pass back to back across a window boundary.
 */
export interface FlexibleLimiters {
  user: RateLimiterAbstract;
  channel: RateLimiterAbstract;
}

/** rate-limiter-flexible options equivalent to a token bucket (see above). */
export function flexibleOptions(
  limit: BucketLimit,
  keyPrefix: string,
): { keyPrefix: string; points: number; duration: number } {
  return { keyPrefix, points: limit.burst, duration: limit.burst / limit.ratePerSec };
}

export class FlexibleLimiter implements RateLimiter {
  constructor(private readonly limiters: FlexibleLimiters) {}

  /** In-process limiters (state is not shared; mostly useful to try the adapter). */
  static inMemory(limits: Partial<RateLimits> = {}, keyPrefix = 'agent-bridge'): FlexibleLimiter {
    const resolved = resolveRateLimits(limits);
    return new FlexibleLimiter({
      user: new RateLimiterMemory(flexibleOptions(resolved.user, `${keyPrefix}:user`)),
      channel: new RateLimiterMemory(flexibleOptions(resolved.channel, `${keyPrefix}:channel`)),
    });
  }

  /** Store errors (not refusals) reject: configure the library's insuranceLimiter to ride them out. */
  async check(request: RateRequest): Promise<RateDecision> {
    const userKey = isTerminalUser(request.userId) ? undefined : request.userId;
    if (userKey !== undefined) {
      const refused = await consume(this.limiters.user, userKey);
      if (refused !== undefined) return { allowed: false, scope: 'user', retryAfterMs: refused };
    }
    const refused = await consume(this.limiters.channel, request.channelKey);
    if (refused !== undefined) {
      // A refused message takes nothing: give the user back the point just spent.
      if (userKey !== undefined) await this.limiters.user.reward(userKey, 1);
      return { allowed: false, scope: 'channel', retryAfterMs: refused };
    }
    return { allowed: true };
  }
}

/** undefined when the point was taken, else the milliseconds until the key's window resets. */
async function consume(limiter: RateLimiterAbstract, key: string): Promise<number | undefined> {
  try {
    await limiter.consume(key, 1);
    return undefined;
  } catch (error) {
    if (error instanceof RateLimiterRes) return Math.max(1, Math.ceil(error.msBeforeNext));
    throw error;
  }
}

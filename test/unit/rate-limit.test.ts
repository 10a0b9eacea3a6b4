import { RateLimiterMemory } from 'rate-limiter-flexible';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RATE_LIMITS,
  isTerminalUser,
  TokenBucketLimiter,
  type RateDecision,
  type RateLimiter,
  type RateRequest,
} from '../../src/core/rate-limit.js';
import { FlexibleLimiter, flexibleOptions } from '../../src/sessions/flexible-rate-limit.js';
import { FakeClock } from '../support/fake-clock.js';

const alice: RateRequest = { userId: 'alice', channelKey: 'telegram:1' };
const bob: RateRequest = { userId: 'bob', channelKey: 'telegram:1' };
const ok: RateDecision = { allowed: true };

function times(
  limiter: RateLimiter,
  request: RateRequest,
  n: number,
): Array<RateDecision | Promise<RateDecision>> {
  return Array.from({ length: n }, () => limiter.check(request));
}

describe('TokenBucketLimiter', () => {
  it('has the seed defaults', () => {
    expect(DEFAULT_RATE_LIMITS).toEqual({
      user: { ratePerSec: 0.5, burst: 3 },
      channel: { ratePerSec: 2, burst: 10 },
    });
  });

  it('lets a user send a burst of 3, then one message every 2 s', () => {
    const clock = new FakeClock();
    const limiter = new TokenBucketLimiter(clock);
    expect(times(limiter, alice, 3)).toEqual([ok, ok, ok]);
    expect(limiter.check(alice)).toEqual({ allowed: false, scope: 'user', retryAfterMs: 2_000 });
    clock.advance(1_500);
    expect(limiter.check(alice)).toEqual({ allowed: false, scope: 'user', retryAfterMs: 500 });
    clock.advance(499);
    expect(limiter.check(alice)).toEqual({ allowed: false, scope: 'user', retryAfterMs: 1 });
    clock.advance(1);
    expect(limiter.check(alice)).toEqual(ok);
    expect(limiter.check(alice)).toMatchObject({ allowed: false, scope: 'user' });
  });

  it('refills to the burst and no further', () => {
    const clock = new FakeClock();
    const limiter = new TokenBucketLimiter(clock);
    times(limiter, alice, 3);
    clock.advance(60_000);
    expect(times(limiter, alice, 4)).toEqual([
      ok,
      ok,
      ok,
      { allowed: false, scope: 'user', retryAfterMs: 2_000 },
    ]);
  });

  it('keeps users apart', () => {
    const clock = new FakeClock();
    const limiter = new TokenBucketLimiter(clock);
    times(limiter, alice, 3);
    expect(limiter.check(alice)).toMatchObject({ allowed: false, scope: 'user' });
    expect(limiter.check(bob)).toEqual(ok);
  });

  it('limits a channel to a burst of 10, then 2 a second, across users', () => {
    const clock = new FakeClock();
    const limiter = new TokenBucketLimiter(clock);
    const users = Array.from({ length: 10 }, (_, i) => ({ userId: `u${i}`, channelKey: 'chat' }));
    expect(users.map((u) => limiter.check(u))).toEqual(Array(10).fill(ok));
    expect(limiter.check({ userId: 'late', channelKey: 'chat' })).toEqual({
      allowed: false,
      scope: 'channel',
      retryAfterMs: 500,
    });
    expect(limiter.check({ userId: 'late', channelKey: 'other chat' })).toEqual(ok);
    clock.advance(500);
    expect(limiter.check({ userId: 'late', channelKey: 'chat' })).toEqual(ok);
  });

  it.each([undefined, '', 'terminal'])(
    'exempts terminal input (user %j) from the user limit only',
    (userId) => {
      const clock = new FakeClock();
      const limiter = new TokenBucketLimiter(clock);
      const terminal = { userId, channelKey: 'terminal' };
      expect(times(limiter, terminal, 10)).toEqual(Array(10).fill(ok));
      expect(limiter.check(terminal)).toEqual({ allowed: false, scope: 'channel', retryAfterMs: 500 });
      expect(isTerminalUser(userId)).toBe(true);
    },
  );

  it('does not treat other users as the terminal', () => {
    expect(isTerminalUser('123456789')).toBe(false);
    expect(isTerminalUser('Terminal ')).toBe(false);
  });

  it('reports the user limit first, and a refused message spends no token', () => {
    const clock = new FakeClock();
    const limiter = new TokenBucketLimiter(clock, {
      user: { ratePerSec: 0.1, burst: 3 },
      channel: { ratePerSec: 1, burst: 2 },
    });
    expect(times(limiter, alice, 2)).toEqual([ok, ok]);
    // The channel refuses: alice keeps her third token.
    expect(limiter.check(alice)).toEqual({ allowed: false, scope: 'channel', retryAfterMs: 1_000 });
    expect(limiter.check(alice)).toEqual({ allowed: false, scope: 'channel', retryAfterMs: 1_000 });
    clock.advance(1_000);
    expect(limiter.check(alice)).toEqual(ok);
    // Both are empty now: the user's limit is the one reported.
    expect(limiter.check(alice)).toEqual({ allowed: false, scope: 'user', retryAfterMs: 9_000 });
    clock.advance(1_000);
    // alice's refusals do not spend the channel's new token: bob gets it.
    expect(limiter.check(alice)).toEqual({ allowed: false, scope: 'user', retryAfterMs: 8_000 });
    expect(limiter.check(alice)).toEqual({ allowed: false, scope: 'user', retryAfterMs: 8_000 });
    expect(limiter.check(bob)).toEqual(ok);
    expect(limiter.check(bob)).toMatchObject({ allowed: false, scope: 'channel' });
  });

  it('takes custom limits and rejects nonsense', () => {
    const clock = new FakeClock();
    const limiter = new TokenBucketLimiter(clock, { user: { ratePerSec: 10, burst: 1 } });
    expect(limiter.check(alice)).toEqual(ok);
    expect(limiter.check(alice)).toEqual({ allowed: false, scope: 'user', retryAfterMs: 100 });
    expect(() => new TokenBucketLimiter(clock, { user: { ratePerSec: 0, burst: 3 } })).toThrow(RangeError);
    expect(() => new TokenBucketLimiter(clock, { channel: { ratePerSec: 2, burst: 0 } })).toThrow(RangeError);
    expect(() => new TokenBucketLimiter(clock, { channel: { ratePerSec: NaN, burst: 2 } })).toThrow(
      RangeError,
    );
  });

  it('waiting exactly retryAfterMs is always enough, even for rates that are not round', () => {
    const clock = new FakeClock();
    const limiter = new TokenBucketLimiter(clock, { user: { ratePerSec: 0.3, burst: 1 } });
    expect(limiter.check(alice)).toEqual(ok);
    for (let i = 0; i < 20; i++) {
      const refused = limiter.check(alice);
      expect(refused).toMatchObject({ allowed: false, scope: 'user' });
      clock.advance((refused as { retryAfterMs: number }).retryAfterMs);
      expect(limiter.check(alice)).toEqual(ok);
    }
  });

  it('drops buckets that have refilled, so idle keys do not pile up', () => {
    const clock = new FakeClock();
    const limiter = new TokenBucketLimiter(clock);
    for (let i = 0; i < 500; i++) limiter.check({ userId: `user${i}`, channelKey: `chat${i}` });
    expect(limiter.trackedKeys).toEqual({ users: 500, channels: 500 });
    clock.advance(60_000);
    for (let i = 0; i < 1_000; i++) limiter.check({ userId: 'steady', channelKey: 'steady' });
    expect(limiter.trackedKeys.users).toBeLessThanOrEqual(1);
    expect(limiter.trackedKeys.channels).toBeLessThanOrEqual(1);
  });
});

describe('FlexibleLimiter (rate-limiter-flexible, real time)', () => {
  it('maps a token bucket to points per window', () => {
    expect(flexibleOptions({ ratePerSec: 0.5, burst: 3 }, 'u')).toEqual({
      keyPrefix: 'u',
      points: 3,
      duration: 6,
    });
    expect(flexibleOptions({ ratePerSec: 2, burst: 10 }, 'c')).toEqual({
      keyPrefix: 'c',
      points: 10,
      duration: 5,
    });
  });

  it('allows a burst per user, then refuses with the user scope', async () => {
    const limiter = FlexibleLimiter.inMemory();
    expect(await Promise.all(times(limiter, alice, 3))).toEqual([ok, ok, ok]);
    const refused = await limiter.check(alice);
    expect(refused).toMatchObject({ allowed: false, scope: 'user' });
    expect((refused as { retryAfterMs: number }).retryAfterMs).toBeGreaterThan(0);
    expect(await limiter.check(bob)).toEqual(ok);
  });

  it('limits the channel, exempts the terminal from the user limit, and gives back the user point', async () => {
    const limiter = FlexibleLimiter.inMemory({ channel: { ratePerSec: 0.1, burst: 2 } });
    const terminal = { userId: 'terminal', channelKey: 'terminal' };
    expect(await Promise.all(times(limiter, terminal, 2))).toEqual([ok, ok]);
    expect(await limiter.check(terminal)).toMatchObject({ allowed: false, scope: 'channel' });

    expect(await Promise.all(times(limiter, alice, 2))).toEqual([ok, ok]);
    for (let i = 0; i < 5; i++)
      expect(await limiter.check(alice)).toMatchObject({ allowed: false, scope: 'channel' });
    // The refusals took none of alice's points: she still has one left elsewhere.
    expect(await limiter.check({ userId: 'alice', channelKey: 'telegram:2' })).toEqual(ok);
    expect(await limiter.check({ userId: 'alice', channelKey: 'telegram:3' })).toMatchObject({
      scope: 'user',
    });
  });

  it('allows again once the refusal’s retryAfterMs has passed (short window)', async () => {
    const limiter = new FlexibleLimiter({
      user: new RateLimiterMemory({ keyPrefix: 'u', points: 1, duration: 0.05 }),
      channel: new RateLimiterMemory({ keyPrefix: 'c', points: 100, duration: 60 }),
    });
    expect(await limiter.check(alice)).toEqual(ok);
    // The second message is refused (unless the window already ended on a slow machine); waiting the
    // retryAfterMs it reports is enough (one more try allowed for a timer firing a millisecond early).
    let decision = await limiter.check(alice);
    let waits = 0;
    while (!decision.allowed && waits < 3) {
      expect(decision.scope).toBe('user');
      await new Promise((resolve) => setTimeout(resolve, decision.allowed ? 0 : decision.retryAfterMs));
      waits++;
      decision = await limiter.check(alice);
    }
    expect(decision).toEqual(ok);
    expect(waits).toBeLessThanOrEqual(2);
  });

  it('passes store errors on rather than calling them refusals', async () => {
    const broken = new RateLimiterMemory({ points: 1, duration: 1 });
    broken.consume = () => Promise.reject(new Error('store down'));
    const limiter = new FlexibleLimiter({ user: broken, channel: broken });
    await expect(limiter.check(alice)).rejects.toThrow('store down');
  });
});

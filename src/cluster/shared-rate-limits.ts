import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import { resolveRateLimits, type BucketLimit, type RateLimits } from '../core/rate-limit.js';
import { FlexibleLimiter, flexibleOptions } from '../sessions/flexible-rate-limit.js';

/** Keys in Redis start with this, so several hubs count the same user and chat together. */
const KEY_PREFIX = 'agent-bridge';

/**
 * Rate limits that hold across hubs (`defaults.rate_limit.redis`): rate-limiter-flexible's Redis store, one
 * connection per hub. While Redis cannot be reached, each hub goes on with the same limits of its own (the
 * library's insurance limiter), so a message is limited, never lost because the shared count is away.
 */
export class SharedRateLimits {
  private readonly client: Redis;

  constructor(url: string, log: (line: string) => void) {
    this.client = new Redis(url, {
      // A limit is asked for while a person waits: no queueing behind a connection that is down.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      lazyConnect: false,
    });
    let said = false;
    this.client.on('error', (error: Error) => {
      if (!said)
        log(`rate limits: Redis at ${redact(url)}: ${error.message}; each hub counts alone meanwhile`);
      said = true;
    });
    this.client.on('ready', () => (said = false));
  }

  /** Counting with the other hubs now (else each counts alone until Redis is back). */
  get connected(): boolean {
    return this.client.status === 'ready';
  }

  /** The daemon's limiter for these limits (a reloaded configuration makes a new one, on the same connection). */
  limiter(limits: Partial<RateLimits>): FlexibleLimiter {
    const resolved = resolveRateLimits(limits);
    return new FlexibleLimiter({
      user: this.shared(resolved.user, `${KEY_PREFIX}:user`),
      channel: this.shared(resolved.channel, `${KEY_PREFIX}:channel`),
    });
  }

  close(): void {
    this.client.disconnect();
  }

  private shared(limit: BucketLimit, keyPrefix: string): RateLimiterRedis {
    const options = flexibleOptions(limit, keyPrefix);
    return new RateLimiterRedis({
      ...options,
      storeClient: this.client,
      insuranceLimiter: new RateLimiterMemory(options),
    });
  }
}

/** A Redis URL as it may be said in a log: without its password. */
function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the configured URL';
  }
}

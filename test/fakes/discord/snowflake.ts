// Snowflake ids: time-based like Discord's (discord.js reads creation times from them), strictly increasing.
import { randomBytes } from 'node:crypto';

const DISCORD_EPOCH = 1_420_070_400_000n;
let last = 0n;

export function nextId(): string {
  const candidate = (BigInt(Date.now()) - DISCORD_EPOCH) << 22n;
  last = candidate > last ? candidate : last + 1n;
  return last.toString();
}

/** An opaque token such as an interaction token. */
export function randomToken(prefix: string): string {
  return `${prefix}${randomBytes(24).toString('base64url')}`;
}

/** ISO time for a millisecond timestamp, as Discord writes it (`+00:00`). */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '+00:00');
}

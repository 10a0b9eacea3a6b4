import { describe, expect, it } from 'vitest';
import { nextCallOr } from '../../src/core/clock.js';
import { FakeClock } from '../support/fake-clock.js';

const settledYet = async (promise: Promise<void>): Promise<boolean> => {
  let settled = false;
  void promise.then(() => (settled = true));
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
};

describe('nextCallOr', () => {
  it('resolves at the next call of the list, then leaves it and ends its timer', async () => {
    const clock = new FakeClock();
    const listeners: Array<(value: number) => void> = [];
    const seen: number[] = [];
    listeners.push((value) => seen.push(value));
    const waited = nextCallOr(clock, listeners, 1_000);
    expect(await settledYet(waited)).toBe(false);
    for (const listener of [...listeners]) listener(7);
    expect(await settledYet(waited)).toBe(true);
    expect(listeners).toHaveLength(1);
    expect(seen).toEqual([7]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('resolves after the timeout when nothing calls, and leaves the list', async () => {
    const clock = new FakeClock();
    const listeners: Array<() => void> = [];
    const waited = nextCallOr(clock, listeners, 1_000);
    clock.advance(999);
    expect(await settledYet(waited)).toBe(false);
    clock.advance(1);
    expect(await settledYet(waited)).toBe(true);
    expect(listeners).toHaveLength(0);
  });
});

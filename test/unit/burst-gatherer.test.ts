import { describe, expect, it } from 'vitest';
import {
  BURST_MAX_BYTES,
  BURST_WINDOW_MS,
  BurstGatherer,
  INTERACTIVE_BYTES,
} from '../../src/core/burst-gatherer.js';
import { FakeClock } from '../support/fake-clock.js';

function gatherer() {
  const clock = new FakeClock();
  const sent: string[] = [];
  const burst = new BurstGatherer(clock, (data) => sent.push(data.toString()));
  return { clock, sent, burst };
}

describe('burst gatherer', () => {
  it('lets keystroke echoes through at once, each in its own message', () => {
    const { clock, sent, burst } = gatherer();
    burst.push(Buffer.from('a'));
    clock.advance(50);
    burst.push(Buffer.from('b'));
    burst.push(Buffer.from('c'));
    expect(sent).toEqual(['a', 'b', 'c']);
  });

  it('gathers a burst into messages of BURST_MAX_BYTES, and sends the rest when the window ends', () => {
    const { clock, sent, burst } = gatherer();
    const read = 'r'.repeat(4096);
    const reads = 64;
    for (let i = 0; i < reads; i++) burst.push(Buffer.from(read));
    // The first INTERACTIVE_BYTES went as they came; then full messages only.
    expect(sent.slice(0, INTERACTIVE_BYTES / 4096).every((m) => m.length === 4096)).toBe(true);
    expect(sent.slice(INTERACTIVE_BYTES / 4096).every((m) => m.length === BURST_MAX_BYTES)).toBe(true);
    const held = reads * 4096 - sent.join('').length;
    expect(held).toBeGreaterThan(0);
    clock.advance(BURST_WINDOW_MS);
    expect(sent.join('')).toBe(read.repeat(reads));
    expect(sent.length).toBeLessThan(reads / 4);
  });

  it('sends what it holds on flush (before a screen or an exit), and nothing twice', () => {
    const { clock, sent, burst } = gatherer();
    burst.push(Buffer.from('x'.repeat(INTERACTIVE_BYTES)));
    burst.push(Buffer.from('held'));
    expect(sent.join('')).not.toContain('held');
    burst.flush();
    expect(sent.at(-1)).toBe('held');
    clock.advance(BURST_WINDOW_MS * 10);
    expect(sent.join('')).toBe('x'.repeat(INTERACTIVE_BYTES) + 'held');
    expect(clock.pendingTimers).toBe(0);
  });
});

import { describe, expect, it } from 'vitest';
import { deliveryFor, OutputBatcher, responseFileName } from '../../src/core/output-batcher.js';
import { FakeClock } from '../support/fake-clock.js';

function setup(options: { flushMs?: number; threshold?: number } = {}) {
  const clock = new FakeClock();
  const flushed: Array<{ at: number; text: string }> = [];
  const start = clock.now();
  const batcher = new OutputBatcher({
    clock,
    ...options,
    onFlush: (text) => flushed.push({ at: clock.now() - start, text }),
  });
  return { clock, batcher, flushed };
}

describe('OutputBatcher', () => {
  it('gathers output and flushes it 500 ms after it started arriving', () => {
    const { clock, batcher, flushed } = setup();
    batcher.push('line 1\n');
    clock.advance(200);
    batcher.push('line 2\n');
    clock.advance(299);
    expect(flushed).toEqual([]);
    expect(batcher.pending).toBe(14);
    clock.advance(1);
    expect(flushed).toEqual([{ at: 500, text: 'line 1\nline 2\n' }]);
    expect(batcher.pending).toBe(0);
  });

  it('flushes every 500 ms under steady output, and never when there is nothing', () => {
    const { clock, batcher, flushed } = setup();
    for (let t = 0; t < 1_600; t += 100) {
      batcher.push(`${t};`);
      clock.advance(100);
    }
    expect(flushed.map((f) => f.at)).toEqual([500, 1_000, 1_500]);
    expect(flushed[0]!.text).toBe('0;100;200;300;400;');
    clock.advance(10_000);
    expect(flushed.map((f) => f.at)).toEqual([500, 1_000, 1_500, 2_000]);
    expect(flushed.map((f) => f.text).join('')).toBe(
      Array.from({ length: 16 }, (_, i) => `${i * 100};`).join(''),
    );
    expect(clock.pendingTimers).toBe(0);
  });

  it('ignores empty pushes', () => {
    const { clock, batcher, flushed } = setup();
    batcher.push('');
    expect(clock.pendingTimers).toBe(0);
    clock.advance(1_000);
    expect(flushed).toEqual([]);
  });

  it('flushes at once when the batch grows past the threshold', () => {
    const { clock, batcher, flushed } = setup({ threshold: 10 });
    batcher.push('12345');
    batcher.push('67890');
    expect(flushed).toEqual([]); // exactly 10: not over
    batcher.push('x');
    expect(flushed).toEqual([{ at: 0, text: '1234567890x' }]);
    expect(clock.pendingTimers).toBe(0);
    batcher.push('after');
    clock.advance(500);
    expect(flushed).toEqual([
      { at: 0, text: '1234567890x' },
      { at: 500, text: 'after' },
    ]);
  });

  it('uses the seed defaults: 1500 characters, 500 ms', () => {
    const { clock, batcher, flushed } = setup();
    batcher.push('a'.repeat(1_500));
    expect(flushed).toEqual([]);
    batcher.push('b');
    expect(flushed.map((f) => f.text.length)).toEqual([1_501]);
    batcher.push('c');
    clock.advance(499);
    expect(flushed).toHaveLength(1);
    clock.advance(1);
    expect(flushed).toHaveLength(2);
  });

  it('takes another interval', () => {
    const { clock, batcher, flushed } = setup({ flushMs: 50 });
    batcher.push('x');
    clock.advance(50);
    expect(flushed).toEqual([{ at: 50, text: 'x' }]);
  });

  it('close() flushes the rest at once and cancels the timer; later output is delivered at once', () => {
    const { clock, batcher, flushed } = setup();
    batcher.push('tail');
    clock.advance(100);
    batcher.close();
    expect(flushed).toEqual([{ at: 100, text: 'tail' }]);
    expect(clock.pendingTimers).toBe(0);
    batcher.close();
    expect(flushed).toHaveLength(1);
    batcher.push('late');
    expect(flushed).toEqual([
      { at: 100, text: 'tail' },
      { at: 100, text: 'late' },
    ]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('flush() delivers now and does nothing when empty', () => {
    const { clock, batcher, flushed } = setup();
    batcher.flush();
    expect(flushed).toEqual([]);
    batcher.push('now');
    batcher.flush();
    expect(flushed).toEqual([{ at: 0, text: 'now' }]);
    clock.advance(1_000);
    expect(flushed).toHaveLength(1);
  });
});

describe('deliveryFor', () => {
  // Local time, as the seed names its files.
  const at = new Date(2026, 0, 2, 9, 5, 7).getTime();

  it.each([
    ['short text', 'hello', 1_500, 'text'],
    ['exactly the threshold', 'x'.repeat(1_500), 1_500, 'text'],
    ['one over', 'x'.repeat(1_501), 1_500, 'file'],
    ['a custom threshold', 'x'.repeat(11), 10, 'file'],
  ])('%s → %s', (_name, text, threshold, kind) => {
    expect(deliveryFor(text, threshold, at).kind).toBe(kind);
  });

  it('keeps short text as it is', () => {
    expect(deliveryFor('hello\n', 1_500, at)).toEqual({ kind: 'text', text: 'hello\n' });
  });

  it('sends long text as response-HHMMSS.md holding the text', () => {
    const text = `# Result\n${'é'.repeat(2_000)}`;
    const delivery = deliveryFor(text, 1_500, at);
    expect(delivery).toMatchObject({ kind: 'file', fileName: 'response-090507.md' });
    if (delivery.kind !== 'file') throw new Error('expected a file');
    expect(delivery.data.toString('utf8')).toBe(text);
  });

  it('names files with two-digit hours, minutes and seconds', () => {
    expect(responseFileName(new Date(2026, 5, 30, 23, 59, 58).getTime())).toBe('response-235958.md');
    expect(responseFileName(new Date(2026, 5, 30, 0, 0, 0).getTime())).toBe('response-000000.md');
  });
});

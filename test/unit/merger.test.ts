import { describe, expect, it } from 'vitest';
import { Merger } from '../../src/core/merger.js';
import { FakeClock } from '../support/fake-clock.js';

/** [ms since start, source, what the agent receives] */
type Step = [at: number, source: string, expected: string];

function run(steps: Step[], windowMs?: number): string[] {
  const clock = new FakeClock();
  const start = clock.now();
  const merger = new Merger(clock, windowMs);
  return steps.map(([at, source]) => {
    clock.advance(start + at - clock.now());
    return merger.format(source, 'msg');
  });
}

describe('Merger', () => {
  it.each<[string, Step[], number?]>([
    [
      'a lone source is never prefixed',
      [
        [0, 'terminal', 'msg'],
        [100, 'terminal', 'msg'],
        [5_000, 'terminal', 'msg'],
      ],
    ],
    [
      'the first message of a burst is unprefixed; the second source and then every active source are prefixed',
      [
        [0, 'terminal', 'msg'],
        [500, 'telegram', '[telegram] msg'],
        [1_000, 'terminal', '[terminal] msg'],
        [1_200, 'telegram', '[telegram] msg'],
      ],
    ],
    [
      'a source idle for exactly the window still counts; one millisecond more and it is forgotten',
      [
        [0, 'terminal', 'msg'],
        [2_000, 'telegram', '[telegram] msg'],
        [4_001, 'terminal', 'msg'],
      ],
    ],
    [
      'after the window passes without interleaving, messages are unprefixed again',
      [
        [0, 'terminal', 'msg'],
        [1_000, 'telegram', '[telegram] msg'],
        [3_500, 'telegram', 'msg'],
        [4_000, 'telegram', 'msg'],
      ],
    ],
    [
      'a source that keeps talking stays active and keeps prefixing others',
      [
        [0, 'a', 'msg'],
        [1_500, 'a', 'msg'],
        [3_000, 'b', '[b] msg'],
      ],
    ],
    [
      'three sources: each is prefixed while any other is active',
      [
        [0, 'a', 'msg'],
        [100, 'b', '[b] msg'],
        [200, 'c', '[c] msg'],
        [2_050, 'c', '[c] msg'], // b (at 100) is still active; a (at 0) is not
        [4_300, 'a', 'msg'],
      ],
    ],
    [
      'the window is configurable',
      [
        [0, 'a', 'msg'],
        [600, 'b', 'msg'],
        [1_000, 'a', '[a] msg'],
      ],
      500,
    ],
  ])('%s', (_name, steps, windowMs) => {
    expect(run(steps, windowMs)).toEqual(steps.map(([, , expected]) => expected));
  });

  it('keeps the content as given after the prefix', () => {
    const clock = new FakeClock();
    const merger = new Merger(clock);
    expect(merger.format('discord', 'fix the bug')).toBe('fix the bug');
    expect(merger.format('terminal', 'show me the file\nplease')).toBe('[terminal] show me the file\nplease');
  });

  it('forgets stale sources', () => {
    const clock = new FakeClock();
    const merger = new Merger(clock);
    merger.format('a', 'x');
    clock.advance(1_000);
    merger.format('b', 'x');
    expect(merger.activeSources()).toEqual(['a', 'b']);
    clock.advance(1_001);
    expect(merger.activeSources()).toEqual(['b']);
    clock.advance(1_000);
    expect(merger.activeSources()).toEqual([]);
  });
});

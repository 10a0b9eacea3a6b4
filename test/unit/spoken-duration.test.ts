import { describe, expect, it } from 'vitest';
import { spokenDuration } from '../../src/core/spoken-duration.js';

describe('a duration as a person says it', () => {
  it('in seconds under a minute, whole minutes under an hour, then hours and minutes', () => {
    expect([0, 400, 1_500, 40_000, 59_400].map(spokenDuration)).toEqual([
      '0 s',
      '0 s',
      '2 s',
      '40 s',
      '59 s',
    ]);
    expect([60_000, 90_000, 300_000, 3_599_000].map(spokenDuration)).toEqual([
      '1 min',
      '2 min',
      '5 min',
      '1 h',
    ]);
    expect([3_600_000, 5_400_000, 7_200_000].map(spokenDuration)).toEqual(['1 h', '1 h 30 min', '2 h']);
    expect(spokenDuration(-5)).toBe('0 s');
  });
});

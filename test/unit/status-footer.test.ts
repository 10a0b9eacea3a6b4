import { describe, expect, it } from 'vitest';
import { formatStatusFooter, formatTimeLeft } from '../../src/core/status-footer.js';

const NOW = Date.parse('2026-02-21T09:30:00Z');
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

describe('status footer', () => {
  it('shows model, context and both rate-limit windows as seed 001 does', () => {
    const footer = formatStatusFooter(
      {
        model: 'Opus 4.6',
        contextPercent: 50,
        session: { usedPercent: 45, resetsAt: NOW + 2 * HOUR + 30 * MIN },
        weekly: { usedPercent: 12, resetsAt: NOW + 5 * DAY + 3 * HOUR + 20 * MIN },
      },
      NOW,
    );
    expect(footer).toBe('Opus 4.6 50% │ session:45%(2h30m) │ weekly:12%(5d03h)');
  });

  it('leaves out what the agent did not report', () => {
    expect(formatStatusFooter({ model: 'Opus 4.8 (1M context)' }, NOW)).toBe('Opus 4.8 (1M context)');
    expect(formatStatusFooter({ model: 'Sonnet 5', contextPercent: 0.6 }, NOW)).toBe('Sonnet 5 1%');
    expect(formatStatusFooter({ contextPercent: 7 }, NOW)).toBe('7%');
    expect(formatStatusFooter({ weekly: { usedPercent: 12.4 } }, NOW)).toBe('weekly:12%');
    expect(
      formatStatusFooter({ model: 'M', session: { usedPercent: 3, resetsAt: NOW + 5 * MIN } }, NOW),
    ).toBe('M │ session:3%(5m)');
  });

  it('drops a window that already reset: its percentage is stale', () => {
    const footer = formatStatusFooter(
      {
        model: 'M',
        session: { usedPercent: 90, resetsAt: NOW - MIN },
        weekly: { usedPercent: 1, resetsAt: NOW + DAY },
      },
      NOW,
    );
    expect(footer).toBe('M │ weekly:1%(1d00h)');
  });

  it('is null when nothing is known', () => {
    expect(formatStatusFooter(null, NOW)).toBeNull();
    expect(formatStatusFooter({}, NOW)).toBeNull();
    expect(formatStatusFooter({ model: '  ' }, NOW)).toBeNull();
  });

  it('formats time left compactly', () => {
    expect(formatTimeLeft(2 * HOUR + 30 * MIN)).toBe('2h30m');
    expect(formatTimeLeft(2 * HOUR + 5 * MIN + 59_000)).toBe('2h05m');
    expect(formatTimeLeft(5 * DAY + 3 * HOUR)).toBe('5d03h');
    expect(formatTimeLeft(42 * MIN)).toBe('42m');
    expect(formatTimeLeft(30_000)).toBe('0m');
    expect(formatTimeLeft(-5)).toBe('0m');
  });
});

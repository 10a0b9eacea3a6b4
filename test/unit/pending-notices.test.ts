import { describe, expect, it } from 'vitest';
import type { HostFrame } from '../../src/sessions/host/host-wire.js';
import { NOTICE_DELAY_MS, PendingNotices } from '../../src/sessions/host/pending-notices.js';
import { FakeClock } from '../support/fake-clock.js';

function recipient() {
  const got: HostFrame[] = [];
  return { got, sendJson: (frame: HostFrame) => got.push(frame) };
}

describe('news for a client of the session host, a moment later', () => {
  it('goes out NOTICE_DELAY_MS later, keys typed meanwhile as one notice and only the last active', () => {
    const clock = new FakeClock();
    const notices = new PendingNotices(clock);
    const serve = recipient();
    notices.add(serve, { type: 'typed', data: 'l' });
    notices.add(serve, { type: 'typed', data: 's' });
    notices.add(serve, { type: 'active', outputAt: 10 });
    notices.add(serve, { type: 'active', outputAt: 12 });
    clock.advance(NOTICE_DELAY_MS - 1);
    expect(serve.got).toEqual([]);
    clock.advance(1);
    expect(serve.got).toEqual([
      { type: 'typed', data: 'ls' },
      { type: 'active', outputAt: 12 },
    ]);
  });

  it('keeps their order, and goes before any other frame to the same client (flush)', () => {
    const clock = new FakeClock();
    const notices = new PendingNotices(clock);
    const serve = recipient();
    const other = recipient();
    notices.add(serve, { type: 'active', outputAt: 1 });
    notices.add(serve, { type: 'typed', data: 'y' });
    notices.add(other, { type: 'active', outputAt: 1 });
    notices.flush(serve);
    serve.sendJson({ type: 'settled', state: null } as unknown as HostFrame);
    expect(serve.got.map((f) => f.type)).toEqual(['active', 'typed', 'settled']);
    expect(other.got).toEqual([]);
    clock.advance(NOTICE_DELAY_MS);
    expect(serve.got).toHaveLength(3);
    expect(other.got).toEqual([{ type: 'active', outputAt: 1 }]);
  });

  it('drops what waited for a client that left', () => {
    const clock = new FakeClock();
    const notices = new PendingNotices(clock);
    const gone = recipient();
    notices.add(gone, { type: 'typed', data: 'x' });
    notices.drop(gone);
    clock.advance(NOTICE_DELAY_MS);
    expect(gone.got).toEqual([]);
  });
});

import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  MAX_PENDING_BYTES,
  QUIET_PARSE_MS,
  SCREEN_SETTLE_MS,
  ScreenModel,
} from '../../src/drivers/terminal/screen.js';
import { FakeClock } from '../support/fake-clock.js';

let screen: ScreenModel | null = null;
afterEach(() => screen?.dispose());

function model(clock: FakeClock, cols = 80, rows = 24): ScreenModel {
  screen = new ScreenModel({ cols, rows, clock });
  return screen;
}

/** Lets xterm's parse (its own timers) and the model's next-turn looks run. */
const turns = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('screen model', () => {
  it('reads a screen nothing was parsed into exactly as xterm.js would, without making the terminal first', () => {
    const clock = new FakeClock();
    const lazy = new ScreenModel({ cols: 100, rows: 30, clock });
    const made = model(clock, 90, 20);
    lazy.resize(90, 20);
    lazy.feed(Buffer.from('queued, not parsed yet'));
    made.feed(Buffer.from('queued, not parsed yet'));
    made.warm();
    expect(lazy.snapshot()).toEqual(made.snapshot());
    expect(lazy.resetSequence()).toBe(made.resetSequence());
    expect(lazy.serialize()).toBe(made.serialize());
    // Made later, the terminal has the size it was given meanwhile, and shows the same.
    lazy.warm();
    expect(lazy.snapshot()).toEqual(made.snapshot());
    expect(lazy.serialize()).toBe(made.serialize());
    lazy.dispose();
  });

  it('says nothing on the console of an escape sequence cut by a skipped burst (it heals at the next redraw)', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const m = model(new FakeClock());
      // A cursor move cut after its first parameter, the rest of the stream going on: xterm.js's parse error.
      m.feed(Buffer.from('\x1b[1;é2Hhello'));
      await m.catchUp();
      expect(m.snapshot().text).toContain('hello');
      expect(errors).not.toHaveBeenCalled();
    } finally {
      errors.mockRestore();
    }
  });

  it('parses output in the first quiet moment, and settles only after SCREEN_SETTLE_MS of quiet', async () => {
    const clock = new FakeClock();
    const screen = model(clock);
    let settles = 0;
    screen.onSettled(() => settles++);
    screen.feed(Buffer.from('building\r\nContinue? (y/n) '));
    expect(screen.snapshot().text.trim()).toBe('');
    clock.advance(QUIET_PARSE_MS);
    await vi.waitFor(() => expect(screen.snapshot().text).toContain('Continue? (y/n)'));
    expect(settles).toBe(0);
    clock.advance(SCREEN_SETTLE_MS - QUIET_PARSE_MS - 1);
    await turns();
    expect(settles).toBe(0);
    clock.advance(1);
    await turns();
    expect(settles).toBe(1);
  });

  it('parses a quiet moment as it comes, not on a timer of xterm’s own', async () => {
    const clock = new FakeClock();
    const screen = model(clock);
    expect(screen.parsesAtOnce).toBe(true);
    const output = Buffer.from('\x1b]0;build\x07ready\r\n');
    screen.feed(output);
    clock.advance(QUIET_PARSE_MS);
    await Promise.resolve();
    expect(screen.snapshot()).toMatchObject({ title: 'build', outputAt: output.length });
    expect(screen.snapshot().lines[0]).toBe('ready');
  });

  it('leaves output that keeps coming unparsed until it pauses', async () => {
    const clock = new FakeClock();
    const screen = model(clock);
    for (let i = 0; i < 50; i++) {
      screen.feed(Buffer.from(`line ${i}\r\n`));
      clock.advance(QUIET_PARSE_MS / 2);
      await turns();
    }
    expect(screen.snapshot().text.trim()).toBe('');
    clock.advance(QUIET_PARSE_MS);
    await vi.waitFor(() => expect(screen.snapshot().text).toContain('line 49'));
  });

  it('skips nothing of a long stream that pauses briefly, parsing it a slice at a time', async () => {
    const clock = new FakeClock();
    const screen = model(clock);
    const row = (i: number) =>
      `\x1b[${(i % 23) + 1};1H\x1b[3${i % 8}mrow ${i}`.padEnd(60, '.') + '\x1b[0m\x1b[K';
    let i = 0;
    // Four times the backlog the model keeps, in 64 KiB writes, each followed by a pause of 1 ms.
    for (let written = 0; written < 4 * MAX_PENDING_BYTES;) {
      let chunk = '';
      while (chunk.length < 64 * 1024) chunk += row(i++);
      screen.feed(Buffer.from(chunk));
      written += chunk.length;
      clock.advance(QUIET_PARSE_MS);
      await vi.waitFor(() => expect(screen.snapshot().text).toContain(`row ${i - 1}.`));
    }
    expect(screen.snapshot().skippedBytes).toBe(0);
  });

  it('parses a backlog of small writes slice by slice to the screen one parse of it gives, split characters too', async () => {
    const bytes = Buffer.from(
      Array.from({ length: 800 }, (_, i) => `${i} ${'─ é ✓ 𝄞 '.repeat(4)}line\r\n`).join(''),
      'utf8',
    );
    expect(bytes.length).toBeLessThan(MAX_PENDING_BYTES);
    const sliced = model(new FakeClock());
    const clock = new FakeClock();
    const byWrites = new ScreenModel({ cols: 80, rows: 24, clock });
    // 7-byte writes: slice ends (4 KiB, 16 KiB, ...) fall inside writes, and characters between writes.
    for (let at = 0; at < bytes.length; at += 7) byWrites.feed(bytes.subarray(at, at + 7));
    clock.advance(QUIET_PARSE_MS);
    try {
      await vi.waitFor(() => expect(byWrites.snapshot().outputAt).toBe(bytes.length));
      sliced.feed(bytes);
      await sliced.catchUp();
      expect(byWrites.snapshot().skippedBytes).toBe(0);
      // Every line is still in the scrollback: a byte lost or doubled at a slice's end shows.
      expect(byWrites.tail(1000)).toEqual(sliced.tail(1000));
      expect(byWrites.snapshot().lines).toEqual(sliced.snapshot().lines);
      expect(byWrites.tail(1000)).toContain(`0 ${'─ é ✓ 𝄞 '.repeat(4)}line`);
    } finally {
      byWrites.dispose();
    }
  });

  it('reads the same screen again for nothing until more output is parsed', async () => {
    const clock = new FakeClock();
    const screen = model(clock);
    screen.feed(Buffer.from('one'));
    await screen.catchUp();
    const first = screen.snapshot();
    first.lines[0] = 'changed by the caller';
    expect(screen.snapshot().lines[0]).toBe('one');
    screen.feed(Buffer.from(' two'));
    expect(screen.snapshot().text.trim()).toBe('one');
    await screen.catchUp();
    expect(screen.snapshot().text.trim()).toBe('one two');
  });
});

import { describe, expect, it } from 'vitest';
import type { AgentEventListener } from '../../src/core/events.js';
import type { TerminalSession } from '../../src/drivers/terminal/terminal-session.js';
import { BURST_MAX_BYTES, INTERACTIVE_BYTES } from '../../src/core/burst-gatherer.js';
import { ViewerHub } from '../../src/sessions/viewer-hub.js';
import { FakeClock } from '../support/fake-clock.js';
import type { SizeInfo } from '../../src/sessions/viewer-sizes.js';

function fakeTerminal() {
  let listener: AgentEventListener = () => {};
  const typed: string[] = [];
  const terminal = {
    pty: { size: { cols: 120, rows: 40 } },
    on: (l: AgentEventListener) => ((listener = l), () => (listener = () => {})),
    userInput: (data: string) => typed.push(data),
  } as unknown as TerminalSession;
  return {
    terminal,
    typed,
    emit: (text: string) => listener({ type: 'output', data: Buffer.from(text) }),
    exit: () => listener({ type: 'exit', exit: { exitCode: 0, signal: null } }),
  };
}

function viewer() {
  const frames: string[] = [];
  const exits: unknown[] = [];
  const sizes: SizeInfo[] = [];
  return {
    frames,
    exits,
    sizes,
    output: (data: Uint8Array) => frames.push(Buffer.from(data).toString()),
    exit: (info: unknown) => exits.push(info),
    size: (info: SizeInfo) => sizes.push(info),
  };
}

const noResize = () => {};

/** A hub whose terminal's resizes are kept as "COLSxROWS". */
function sizedHub() {
  const fake = fakeTerminal();
  const resizes: string[] = [];
  const hub = new ViewerHub(
    fake.terminal,
    ({ cols, rows }) => resizes.push(`${cols}x${rows}`),
    () => {},
    new FakeClock(),
  );
  return { hub, resizes, typed: fake.typed };
}

describe('viewer hub', () => {
  it('sends echoes and small output at once, even close together, and gathers a burst into few frames', () => {
    const { terminal, emit } = fakeTerminal();
    const clock = new FakeClock();
    const hub = new ViewerHub(terminal, noResize, () => {}, clock);
    const a = viewer();
    const b = viewer();
    hub.add(a);
    hub.add(b);
    emit('x');
    emit('y');
    expect(a.frames).toEqual(['x', 'y']);
    const chunk = 'c'.repeat(1024);
    for (let i = 0; i < 200; i++) emit(chunk);
    clock.advance(10);
    expect(a.frames.join('')).toBe('xy' + chunk.repeat(200));
    // What fits INTERACTIVE_BYTES went at once, one frame per chunk; the rest of the burst in a few frames.
    expect(a.frames.length).toBeLessThan(2 + INTERACTIVE_BYTES / 1024 + 10);
    expect(b.frames).toEqual(a.frames);
  });

  it('flushes at 64 KiB without waiting, and before the exit', async () => {
    const { terminal, emit, exit } = fakeTerminal();
    const hub = new ViewerHub(terminal, noResize, () => {}, new FakeClock());
    const a = viewer();
    hub.add(a);
    emit('first');
    emit('y'.repeat(BURST_MAX_BYTES));
    expect(a.frames.join('').length).toBe(5 + BURST_MAX_BYTES);
    emit('last');
    exit();
    expect(a.frames.at(-1)).toBe('last');
    expect(a.exits).toEqual([{ exitCode: 0, signal: null }]);
  });

  it('lets go of the terminal when the last viewer leaves', () => {
    const { terminal } = fakeTerminal();
    let emptied = false;
    const hub = new ViewerHub(terminal, noResize, () => (emptied = true), new FakeClock());
    const seat = hub.add(viewer());
    seat.leave();
    expect(emptied).toBe(true);
  });

  it('keeps the size of the viewer that typed last; a phone that joins and only watches changes nothing', () => {
    const { hub, resizes, typed } = sizedHub();
    const desktop = viewer();
    const phone = viewer();
    const deskSeat = hub.add(desktop);
    deskSeat.wants(160, 45);
    expect(resizes).toEqual(['160x45']);
    const phoneSeat = hub.add(phone);
    phoneSeat.wants(44, 30);
    expect(resizes).toEqual(['160x45']);
    expect(phone.sizes.at(-1)).toEqual({ cols: 160, rows: 45, driving: false });
    phoneSeat.input('ls\r');
    expect(typed).toEqual(['ls\r']);
    expect(resizes).toEqual(['160x45', '44x30']);
    expect(desktop.sizes.at(-1)).toEqual({ cols: 44, rows: 30, driving: false });
    expect(phone.sizes.at(-1)).toEqual({ cols: 44, rows: 30, driving: true });
    deskSeat.drive();
    expect(resizes.at(-1)).toBe('160x45');
    phoneSeat.leave();
    deskSeat.wants(100, 30);
    expect(resizes.at(-1)).toBe('100x30');
  });

  it('drops the keys and sizes of a read-only viewer, which never drives', () => {
    const { hub, resizes, typed } = sizedHub();
    const watcher = viewer();
    const seat = hub.add(watcher, { readOnly: true });
    seat.wants(50, 20);
    seat.drive();
    seat.input('rm -rf /\r');
    expect(typed).toEqual([]);
    expect(resizes).toEqual([]);
    expect(watcher.sizes).toEqual([{ cols: 120, rows: 40, driving: false }]);
  });
});

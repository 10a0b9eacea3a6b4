import { describe, expect, it } from 'vitest';
import type { AgentEventListener } from '../../src/core/events.js';
import type { TerminalSession } from '../../src/drivers/terminal/terminal-session.js';
import { INTERACTIVE_BYTES, VIEWER_BATCH_BYTES, ViewerHub } from '../../src/sessions/viewer-hub.js';

function fakeTerminal() {
  let listener: AgentEventListener = () => {};
  const terminal = {
    on: (l: AgentEventListener) => ((listener = l), () => (listener = () => {})),
  } as unknown as TerminalSession;
  return {
    terminal,
    emit: (text: string) => listener({ type: 'output', data: Buffer.from(text) }),
    exit: () => listener({ type: 'exit', exit: { exitCode: 0, signal: null } }),
  };
}

function viewer() {
  const frames: string[] = [];
  const exits: unknown[] = [];
  return {
    frames,
    exits,
    output: (data: Uint8Array) => frames.push(Buffer.from(data).toString()),
    exit: (info: unknown) => exits.push(info),
  };
}

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('viewer hub', () => {
  it('sends echoes and small output at once, even close together, and gathers a burst into few frames', async () => {
    const { terminal, emit } = fakeTerminal();
    const hub = new ViewerHub(terminal, () => {});
    const a = viewer();
    const b = viewer();
    hub.add(a);
    hub.add(b);
    emit('x');
    emit('y');
    expect(a.frames).toEqual(['x', 'y']);
    const chunk = 'c'.repeat(1024);
    for (let i = 0; i < 200; i++) emit(chunk);
    await tick(10);
    expect(a.frames.join('')).toBe('xy' + chunk.repeat(200));
    // What fits INTERACTIVE_BYTES went at once, one frame per chunk; the rest of the burst in a few frames.
    expect(a.frames.length).toBeLessThan(2 + INTERACTIVE_BYTES / 1024 + 10);
    expect(b.frames).toEqual(a.frames);
  });

  it('flushes at 64 KiB without waiting, and before the exit', async () => {
    const { terminal, emit, exit } = fakeTerminal();
    const hub = new ViewerHub(terminal, () => {});
    const a = viewer();
    hub.add(a);
    emit('first');
    emit('y'.repeat(VIEWER_BATCH_BYTES));
    expect(a.frames.join('').length).toBe(5 + VIEWER_BATCH_BYTES);
    emit('last');
    exit();
    expect(a.frames.at(-1)).toBe('last');
    expect(a.exits).toEqual([{ exitCode: 0, signal: null }]);
  });

  it('lets go of the terminal when the last viewer leaves', () => {
    const { terminal } = fakeTerminal();
    let emptied = false;
    const hub = new ViewerHub(terminal, () => (emptied = true));
    const leave = hub.add(viewer());
    leave();
    expect(emptied).toBe(true);
  });
});

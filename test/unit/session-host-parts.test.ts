import { describe, expect, it } from 'vitest';
import { describeDetachKey, parseDetachKey, splitAtDetachKey } from '../../src/cli/detach-key.js';
import { UsageError } from '../../src/cli/errors.js';
import { HookRelay, type HookResponder } from '../../src/sessions/host/host-hooks.js';
import { LineBacklog, MAX_LINES } from '../../src/sessions/host/line-backlog.js';
import type { HostFrame } from '../../src/sessions/host/host-wire.js';
import { parseHello, parseRequest } from '../../src/sessions/host/host-requests.js';

describe('the detach key', () => {
  it('is written ^X (or none) and found in what was typed; keys after it are not typed', () => {
    expect(parseDetachKey('^\\')).toBe(0x1c);
    expect(parseDetachKey('^]')).toBe(0x1d);
    expect(parseDetachKey('^q')).toBe(0x11);
    expect(parseDetachKey('none')).toBeNull();
    for (const bad of ['x', '^', '^1', 'C-b', '^ab']) expect(() => parseDetachKey(bad)).toThrow(UsageError);
    expect(describeDetachKey(0x1c)).toBe('Ctrl-\\');
    expect(splitAtDetachKey(Buffer.from('ls\x1cexit\r'), 0x1c)).toEqual({
      keys: Buffer.from('ls'),
      detach: true,
    });
    expect(splitAtDetachKey(Buffer.from('ls\x1c'), null)).toEqual({
      keys: Buffer.from('ls\x1c'),
      detach: false,
    });
  });
});

describe('the session-host wire', () => {
  it('takes a hello and requests only in their shapes, ignoring what it does not know', () => {
    expect(parseHello('{"type":"hello","protocol":1,"secret":"s","client":"terminal"}')).toMatchObject({
      control: 'no',
      output: true,
      drives: false,
    });
    expect(parseHello('{"type":"hello","protocol":1,"secret":"","client":"terminal"}')).toBeNull();
    expect(parseHello('{"type":"hello","protocol":1,"secret":"s","client":"root"}')).toBeNull();
    expect(parseRequest('{"type":"interrupt","signal":"SIGKILL"}')).toBeNull();
    expect(parseRequest('{"type":"inject","req":1,"parts":["x"],"gapMs":0,"later":true}')).toMatchObject({
      type: 'inject',
    });
    expect(parseRequest('{"type":"teleport"}')).toBeNull();
    expect(
      parseRequest(`{"type":"inject","req":1,"parts":${JSON.stringify(Array(65).fill('x'))},"gapMs":0}`),
    ).toBeNull();
  });
});

function responder() {
  const answers: Array<[number, string]> = [];
  let gone: () => void = () => undefined;
  const r: HookResponder = {
    answer: (status, body) => answers.push([status, body]),
    onGone: (l) => (gone = l),
  };
  return { r, answers, leave: () => gone() };
}

describe('the hook relay of a session host', () => {
  it('holds a permission request for the next controller, keeps the other events for it, and answers them at once', () => {
    const relay = new HookRelay();
    const stop = responder();
    const permission = responder();
    relay.post('Stop', '{"a":1}', stop.r);
    relay.post('PermissionRequest', '{"p":1}', permission.r);
    expect(stop.answers).toEqual([[204, '']]);
    expect(permission.answers).toEqual([]);
    const frames: HostFrame[] = [];
    relay.controllerJoined((frame) => frames.push(frame));
    expect(frames).toEqual([
      { type: 'hook', id: 2, event: 'Stop', body: '{"a":1}', late: true },
      { type: 'hook', id: 1, event: 'PermissionRequest', body: '{"p":1}', late: false },
    ]);
    relay.reply(1, 200, '{"decision":"allow"}');
    expect(permission.answers).toEqual([[200, '{"decision":"allow"}']]);
  });

  it('keeps a permission request when its controller goes, answers the rest, and says when Claude gave up', () => {
    const relay = new HookRelay();
    const frames: HostFrame[] = [];
    relay.controllerJoined((frame) => frames.push(frame));
    const permission = responder();
    const progress = responder();
    relay.post('PermissionRequest', '{}', permission.r);
    relay.post('PreToolUse', '{}', progress.r);
    relay.controllerLeft();
    expect(progress.answers).toEqual([[204, '']]);
    expect(permission.answers).toEqual([]);
    const next: HostFrame[] = [];
    relay.controllerJoined((frame) => next.push(frame));
    expect(next).toEqual([{ type: 'hook', id: 1, event: 'PermissionRequest', body: '{}', late: false }]);
    permission.leave();
    expect(next.at(-1)).toEqual({ type: 'hookGone', id: 1 });
  });
});

describe("a session host's backlog of finished lines", () => {
  it('numbers lines from 1, keeps the newest MAX_LINES, and gives a controller those after the last it read', () => {
    const backlog = new LineBacklog();
    expect(backlog.add(['a', 'b'])).toBe(1);
    expect(backlog.add(['c'])).toBe(3);
    expect(backlog.after(1)).toEqual({ first: 2, lines: ['b', 'c'] });
    expect(backlog.after(3)).toEqual({ first: 4, lines: [] });
    const many = Array.from({ length: MAX_LINES }, (_, i) => `line ${i + 4}`);
    expect(backlog.add(many)).toBe(4);
    // The three oldest are gone: a controller that read none is told where the backlog starts now.
    const { first, lines } = backlog.after(0);
    expect(first).toBe(4);
    expect(lines).toHaveLength(MAX_LINES);
    expect(lines[0]).toBe('line 4');
  });
});

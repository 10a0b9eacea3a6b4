import { describe, expect, it } from 'vitest';
import type { ChatTarget } from '../../src/channels/contract.js';
import {
  ChatBacklog,
  MAX_HELD_PER_CHAT,
  MAX_SEND_TRIES,
  type SendResult,
} from '../../src/sessions/chat-backlog.js';

const A: ChatTarget = { chatId: 'a' };
const A_THREAD: ChatTarget = { chatId: 'a', threadId: 't1' };
const B: ChatTarget = { chatId: 'b' };
const RETRY_MS = 5_000;

/** A backlog with a clock of our own, and a chat that takes or refuses sends as told. */
function setup() {
  let now = 1_000;
  const given: Array<{ item: string; chat: string; why: string }> = [];
  const sent: Array<{ chat: string; item: string }> = [];
  const refusing = new Set<string>();
  const send = (chat: ChatTarget, item: string): Promise<SendResult> => {
    const name = chat.threadId ?? chat.chatId;
    if (refusing.has(name)) return Promise.resolve('failed');
    sent.push({ chat: name, item });
    return Promise.resolve('sent');
  };
  const backlog = new ChatBacklog<string>({
    retryMs: RETRY_MS,
    now: () => now,
    send,
    gaveUp: (item, chat, why) => given.push({ item, chat: chat.threadId ?? chat.chatId, why }),
  });
  return {
    backlog,
    given,
    sent,
    refusing,
    flush: () => backlog.flush(),
    advance: (ms: number) => (now += ms),
    now: () => now,
  };
}

describe('messages a chat has not taken yet', () => {
  it('are tried again once due, in order, and only for the chat that failed', async () => {
    const t = setup();
    t.backlog.hold(A, 'one', true);
    t.backlog.hold(A, 'two');
    expect(t.backlog.holds(A)).toBe(true);
    expect(t.backlog.holds(A_THREAD)).toBe(false); // a thread is a chat of its own
    expect(t.backlog.holds(B)).toBe(false);
    expect(t.backlog.nextDue).toBe(t.now() + RETRY_MS);

    await t.flush(); // not due yet
    expect(t.sent).toEqual([]);
    t.advance(RETRY_MS);
    await t.flush();
    expect(t.sent).toEqual([
      { chat: 'a', item: 'one' },
      { chat: 'a', item: 'two' },
    ]);
    expect(t.backlog.holds(A)).toBe(false);
    expect(t.backlog.nextDue).toBeNull();
  });

  it('give a message up after its tries, then go on with the next', async () => {
    const t = setup();
    t.refusing.add('a');
    t.backlog.hold(A, 'refused', true);
    t.backlog.hold(A, 'next');
    for (let tries = 1; tries < MAX_SEND_TRIES; tries++) {
      t.advance(RETRY_MS);
      await t.flush();
    }
    expect(t.given).toEqual([{ item: 'refused', chat: 'a', why: 'failed' }]);
    expect(t.backlog.holds(A)).toBe(true); // "next" had its first try, and waits
    t.refusing.delete('a');
    t.advance(RETRY_MS);
    await t.flush();
    expect(t.sent).toEqual([{ chat: 'a', item: 'next' }]);
  });

  it('are tried at once when the channel is back, whatever their time', async () => {
    const t = setup();
    t.backlog.hold(B, 'waiting', true);
    t.backlog.dueNow();
    await t.flush();
    expect(t.sent).toEqual([{ chat: 'b', item: 'waiting' }]);
  });

  it("are sent, due or not, before a prompt for their chat; the chat's others wait their time", async () => {
    const t = setup();
    t.backlog.hold(A, 'before the prompt', true);
    t.backlog.hold(B, 'elsewhere', true);
    await t.backlog.flushChat(A);
    expect(t.sent).toEqual([{ chat: 'a', item: 'before the prompt' }]);
    expect(t.backlog.holds(B)).toBe(true);
  });

  it('keep at most so many per chat: the oldest go first, and are said to', () => {
    const t = setup();
    for (let i = 0; i <= MAX_HELD_PER_CHAT; i++) t.backlog.hold(A, `m${i}`, i === 0);
    expect(t.given).toEqual([{ item: 'm0', chat: 'a', why: 'overflow' }]);
  });
});

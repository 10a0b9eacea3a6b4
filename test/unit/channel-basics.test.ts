import { describe, expect, it } from 'vitest';
import {
  answerForButton,
  decodeButton,
  encodeButton,
  CALLBACK_MAX_BYTES,
} from '../../src/channels/callback-data.js';
import { Backoff } from '../../src/core/backoff.js';
import { KeyedSpacer, WindowLimiter } from '../../src/core/window-limiter.js';
import { parseCommand } from '../../src/sessions/chat-commands.js';
import { FakeClock } from '../support/fake-clock.js';

const promptId = '3f2a9c1e-0000-4000-8000-000000000001';
const sessionId = 'a1b2c3d4-0000-4000-8000-000000000002';
const nonce = 'c9d0e1f2a3b4c5d6e7f8091a2b3c4d5e';

describe('button data', () => {
  it('encodes prompt, session, nonce and value within 64 bytes, and decodes it back', () => {
    for (const value of ['y', 'n', 's', 'e', 'd', 'c', 'x', 'm', '1', '9', '12'] as const) {
      const data = encodeButton(promptId, sessionId, nonce, value);
      expect(Buffer.byteLength(data)).toBeLessThanOrEqual(CALLBACK_MAX_BYTES);
      expect(decodeButton(data)).toEqual({
        promptPrefix: '3f2a9c1e',
        sessionPrefix: 'a1b2c3d4',
        noncePrefix: 'c9d0e1f2a3b4c5d6',
        value,
      });
    }
    expect(encodeButton(promptId, sessionId, nonce, 'y')).toBe('ans:3f2a9c1e:a1b2c3d4:c9d0e1f2a3b4c5d6:y');
  });

  it.each([
    '',
    'ans:',
    'ans:3f2a9c1e:a1b2c3d4:c9d0e1f2a3b4c5d6',
    'ans:3F2A9C1E:a1b2c3d4:c9d0e1f2a3b4c5d6:y',
    'ans:3f2a9c1e:a1b2c3d4:c9d0e1f2a3b4c5d6:yes',
    'x'.repeat(300),
    "ans:3f2a9c1e:a1b2c3d4:c9d0e1f2a3b4c5d6:1'; DROP TABLE prompts",
  ])('rejects malformed data %#', (data) => expect(decodeButton(data)).toBeNull());

  it('maps values to answers', () => {
    expect(['y', 'n', 's', 'e', 'd', 'c', 'x', '3'].map(answerForButton)).toEqual([
      'yes',
      'no',
      'session',
      'enter',
      'default',
      'cancel',
      'esc',
      '3',
    ]);
    expect(answerForButton('m')).toBeNull();
    expect(answerForButton('q')).toBeNull();
  });
});

describe('limits', () => {
  it('allows 10 answers a minute per session, then refuses until the window moves', () => {
    const clock = new FakeClock();
    const limiter = new WindowLimiter(10, 60_000, clock);
    for (let i = 0; i < 10; i++) expect(limiter.allow('s1')).toBe(true);
    expect(limiter.allow('s1')).toBe(false);
    expect(limiter.allow('s2')).toBe(true);
    clock.advance(60_000);
    expect(limiter.allow('s1')).toBe(true);
  });

  it('spaces sends to one chat a second apart, other chats unaffected', async () => {
    const clock = new FakeClock();
    const spacer = new KeyedSpacer(1000, clock);
    const sent: string[] = [];
    const a1 = spacer.run('a', async () => void sent.push(`a1@${clock.now()}`));
    const a2 = spacer.run('a', async () => void sent.push(`a2@${clock.now()}`));
    const b1 = spacer.run('b', async () => void sent.push(`b1@${clock.now()}`));
    await a1;
    await b1;
    expect(sent).toEqual([`a1@${clock.now()}`, `b1@${clock.now()}`]);
    const start = clock.now();
    await Promise.resolve();
    await new Promise((r) => setTimeout(r, 0));
    clock.advance(1000);
    await a2;
    expect(sent[2]).toBe(`a2@${start + 1000}`);
  });

  it('backs off 1 s doubling to 60 s, and starts over after a success', () => {
    const backoff = new Backoff();
    expect(Array.from({ length: 8 }, () => backoff.next())).toEqual([
      1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000,
    ]);
    backoff.reset();
    expect(backoff.next()).toBe(1000);
  });
});

describe('chat commands', () => {
  it.each([
    ['/sessions', { command: 'sessions', args: '' }],
    ['/switch 3f2a', { command: 'switch', args: '3f2a' }],
    ['/Status@agent_bridge_bot', { command: 'status', args: '' }],
    ['hello /status', null],
    ['/', null],
  ])('%s', (text, expected) => expect(parseCommand(text)).toEqual(expected));
});

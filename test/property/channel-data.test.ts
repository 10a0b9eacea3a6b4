import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  answerForButton,
  BUTTON_VALUES,
  CALLBACK_MAX_BYTES,
  decodeButton,
  encodeButton,
  type ButtonValue,
} from '../../src/channels/callback-data.js';
import { modalMessageId } from '../../src/channels/discord/discord-channel.js';

// Property tests for what chat platforms hand back to us: button data (Telegram callback_data, Discord and
// Slack custom ids) and Discord form ids. Whatever arrives, it is exactly our format or nothing.

const hex = (length: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${length}}$`));
const values = fc.oneof(
  fc.constantFrom(...(Object.keys(BUTTON_VALUES) as ButtonValue[]), 'm' as const, 'o' as const),
  fc.integer({ min: 1, max: 99 }).map((n) => `${n}` as ButtonValue),
);
/** What an attacker might send: anything, near-misses of our format, and our format with junk around it. */
const hostile = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 120 }),
  fc
    .tuple(hex(8), hex(8), hex(16), fc.string({ maxLength: 4 }))
    .map(([p, s, n, v]) => `ans:${p}:${s}:${n}:${v}`),
  fc
    .tuple(fc.string({ maxLength: 3 }), hex(8), hex(8), hex(16), fc.string({ maxLength: 3 }))
    .map(([before, p, s, n, after]) => `${before}ans:${p}:${s}:${n}:1${after}`),
);

describe('button data', () => {
  it('decodes whatever it encoded, within 64 bytes', () => {
    fc.assert(
      fc.property(hex(32), values, (nonce, value) => {
        const prompt = randomUUID();
        const session = randomUUID();
        const data = encodeButton(prompt, session, nonce, value);
        expect(Buffer.byteLength(data)).toBeLessThanOrEqual(CALLBACK_MAX_BYTES);
        expect(decodeButton(data)).toEqual({
          promptPrefix: prompt.replace(/-/g, '').slice(0, 8),
          sessionPrefix: session.replace(/-/g, '').slice(0, 8),
          noncePrefix: nonce.slice(0, 16),
          value,
        });
      }),
    );
  });

  it('decodes nothing but the exact format, and never throws', () => {
    fc.assert(
      fc.property(hostile, (data) => {
        const decoded = decodeButton(data);
        if (decoded === null) return;
        // Anything accepted re-encodes to the very same bytes: no second spelling of a button exists.
        expect(
          `ans:${decoded.promptPrefix}:${decoded.sessionPrefix}:${decoded.noncePrefix}:${decoded.value}`,
        ).toBe(data);
        expect(decoded.promptPrefix).toMatch(/^[0-9a-f]{8}$/);
        expect(decoded.noncePrefix).toMatch(/^[0-9a-f]{16}$/);
        expect(decoded.value).toMatch(/^([a-z]|\d{1,2})$/);
      }),
    );
  });

  it('turns a value into an answer only when it is one of ours', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 8 }), (value) => {
        const answer = answerForButton(value);
        if (answer === null) return;
        expect(
          /^\d{1,2}$/.test(value) ? answer === value : Object.values(BUTTON_VALUES).includes(answer as never),
        ).toBe(true);
      }),
    );
  });
});

describe('Discord form ids', () => {
  it('give back the prompt message id they were made from', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[1-9]\d{16,19}$/), (id) => {
        expect(modalMessageId(`answer:${id}`)).toBe(id);
      }),
    );
  });

  it('give nothing for anything else', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (customId) => {
        const id = modalMessageId(customId);
        if (id !== null) expect(customId).toBe(`answer:${id}`);
        if (id !== null) expect(id).toMatch(/^\d{5,20}$/);
      }),
    );
    for (const forged of [
      'answer:',
      'answer:../../x',
      'answer:1 OR 1=1',
      'answer:123456789012345678\n',
      'other:123456',
    ])
      expect(modalMessageId(forged)).toBeNull();
  });
});

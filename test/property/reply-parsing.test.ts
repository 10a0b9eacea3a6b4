import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PROMPT_KINDS, type PromptChoice, type PromptKind } from '../../src/core/events.js';
import { parseReply, ReplyError, textChoiceOf, type ReplyAction } from '../../src/core/prompt.js';

// Property tests for the parser every answer passes through (chat buttons and words, the web inbox,
// `approvals answer`): whatever a person or an attacker sends, it is a known action or a ReplyError.

const KINDS: readonly PromptKind[] = PROMPT_KINDS;

const labels = fc.constantFrom(
  'Yes',
  'No',
  'Yes, and always allow',
  "Don't ask",
  'Type something.',
  'Red',
  'Other',
  'Reject',
);

const prompts = fc.record({
  kind: fc.constantFrom(...KINDS),
  choices: fc
    .uniqueArray(labels, { maxLength: 6 })
    .map((ls): PromptChoice[] => ls.map((label, i) => ({ number: i + 1, label }))),
  multiline: fc.boolean(),
  allowForSessionChoice: fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }),
});

const answers = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 60 }),
  fc.constantFrom(
    'y',
    'YES',
    'no',
    'deny',
    'session',
    'enter',
    'default',
    'cancel',
    'esc',
    '0',
    '1',
    '7',
    '99',
    ' 2 ',
  ),
  fc
    .tuple(fc.string({ maxLength: 10 }), fc.constantFrom('\n', '\r\n', '\r', '\x03', '\x1b[201~'))
    .map(([a, b]) => a + b + a),
);

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

function wordsOf(action: ReplyAction): string | undefined {
  if (action.type === 'text') return action.text;
  if (action.type === 'choice') return action.text;
  return undefined;
}

describe('parseReply, for any answer to any prompt', () => {
  it('gives a known action or a ReplyError, nothing else', () => {
    fc.assert(
      fc.property(prompts, answers, (prompt, raw) => {
        try {
          const action = parseReply(raw, prompt);
          expect(['choice', 'yes', 'no', 'enter', 'text', 'default', 'escape', 'cancel']).toContain(
            action.type,
          );
        } catch (error) {
          expect(error).toBeInstanceOf(ReplyError);
        }
      }),
      { numRuns: 5000 },
    );
  });

  it('picks only choices the prompt has', () => {
    fc.assert(
      fc.property(prompts, answers, (prompt, raw) => {
        let action: ReplyAction;
        try {
          action = parseReply(raw, prompt);
        } catch {
          return;
        }
        if (action.type === 'choice' && prompt.choices.length > 0)
          expect(prompt.choices.map((c) => c.number)).toContain(action.number);
      }),
      { numRuns: 5000 },
    );
  });

  it('lets words through only as text: no control bytes, one line where the prompt takes one line', () => {
    fc.assert(
      fc.property(prompts, answers, (prompt, raw) => {
        let action: ReplyAction;
        try {
          action = parseReply(raw, prompt);
        } catch {
          return;
        }
        const words = wordsOf(action);
        if (words === undefined) return;
        expect(words).not.toMatch(CONTROL);
        if (!prompt.multiline) expect(words.trim()).not.toContain('\n');
      }),
      { numRuns: 5000 },
    );
  });

  it('types words into a menu only through its option that takes words', () => {
    fc.assert(
      fc.property(prompts, fc.string({ minLength: 3, maxLength: 30 }), (prompt, raw) => {
        let action: ReplyAction;
        try {
          action = parseReply(raw, prompt);
        } catch {
          return;
        }
        if (action.type === 'choice' && action.text !== undefined)
          expect(action.number).toBe(textChoiceOf(prompt));
        if (action.type === 'text')
          expect(prompt.choices.length === 0 || prompt.kind === 'free_text').toBe(true);
      }),
      { numRuns: 5000 },
    );
  });
});

import { describe, expect, it } from 'vitest';
import { checkForwardedReply } from '../../src/core/forwarded-reply.js';
import { parseReply, type ReplyAction } from '../../src/core/prompt.js';
import { permissionPrompt, yesNoPrompt } from '../support/temp-store.js';

const permission = permissionPrompt();
const question = {
  kind: 'question' as const,
  choices: [
    { number: 1, label: 'Blue' },
    { number: 2, label: 'Type something.' },
  ],
};
const multiSelect = {
  kind: 'question' as const,
  choices: [
    { number: 1, label: 'Lint', checkbox: true as const },
    { number: 2, label: 'Test', checkbox: true as const },
    { number: 3, label: 'Submit' },
  ],
};

describe('an answer parsed on another machine, checked against the prompt that owns it', () => {
  it('takes what parseReply itself makes of words, for each kind of prompt', () => {
    const cases: Array<[Parameters<typeof checkForwardedReply>[1], string]> = [
      [permission, '1'],
      [permission, 'yes'],
      [permission, 'session'],
      [permission, 'not now, run the linter first'],
      [question, 'green, really'],
      [yesNoPrompt(), 'n'],
      [{ kind: 'free_text', choices: [] }, 'two\nlines'],
      [permission, 'cancel'],
      [multiSelect, '1, 2'],
    ];
    for (const [prompt, words] of cases) {
      const reply = parseReply(words, prompt);
      expect(checkForwardedReply(reply, prompt)).toEqual(reply);
    }
  });

  it('refuses what no words could have made of it', () => {
    const refused: Array<[Parameters<typeof checkForwardedReply>[1], ReplyAction, RegExp]> = [
      [permission, { type: 'choice', number: 4 }, /no choice 4/],
      [permission, { type: 'choice', number: 1, text: 'why' }, /choice 1 takes no words/],
      [permission, { type: 'text', text: 'hi' }, /answer with a choice/],
      [permission, { type: 'yes' }, /one of its choices/],
      [multiSelect, { type: 'choices', numbers: [1, 3] }, /tick boxes among 1, 2/],
      [permission, { type: 'choices', numbers: [1, 2] }, /ticks no boxes/],
      [yesNoPrompt(), { type: 'text', text: 'y' }, /takes no words/],
      [{ kind: 'free_text', choices: [], multiline: false }, { type: 'text', text: 'a\nb' }, /one line/],
      [{ kind: 'free_text', choices: [] }, { type: 'text', text: 'ls\u0003' }, /control character/],
      [
        { kind: 'free_text', choices: [], secret: true },
        { type: 'text', text: 'hunter2' },
        /must come sealed/,
      ],
      [{ kind: 'free_text', choices: [] }, { type: 'sealed', box: 'x', length: 3 }, /only a secret prompt/],
    ];
    for (const [prompt, reply, why] of refused) expect(() => checkForwardedReply(reply, prompt)).toThrow(why);
  });

  it('takes a secret only sealed', () => {
    const secret = { kind: 'free_text' as const, choices: [], secret: true };
    expect(checkForwardedReply({ type: 'sealed', box: 'b64', length: 7 }, secret)).toEqual({
      type: 'sealed',
      box: 'b64',
      length: 7,
    });
  });
});

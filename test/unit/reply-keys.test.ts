import { describe, expect, it } from 'vitest';
import type { DialogKeys } from '../../src/core/dialog-keys.js';
import type { PromptChoice } from '../../src/core/events.js';
import { describeReply, parseReply, type DetectedPrompt } from '../../src/core/prompt.js';
import { KeysRefused, nextBoxFlip, replyKeys } from '../../src/drivers/terminal/reply-keys.js';

const UP = '\x1b[A';
const DOWN = '\x1b[B';

function prompt(
  labels: string[],
  keys: DialogKeys,
  state: { highlighted?: number; ticked?: number[]; boxes?: number[] } = {},
  kind: DetectedPrompt['kind'] = 'question',
): DetectedPrompt {
  const choices: PromptChoice[] = labels.map((label, i) =>
    state.boxes?.includes(i + 1) ? { number: i + 1, label, checkbox: true } : { number: i + 1, label },
  );
  const dialog = {
    keys,
    ...(state.highlighted ? { highlighted: state.highlighted } : {}),
    ticked: state.ticked ?? [],
  };
  return { kind, confidence: 'high', excerpt: '', detail: '', choices, safeDefault: null, key: 'k', dialog };
}

const keys = (p: DetectedPrompt, reply: string) => replyKeys(parseReply(reply, p), p, 'digit', false);

describe('the keys a dialog takes, from its vocabulary', () => {
  it('a digit that acts at once; the same choice by arrows where digits do nothing (Copilot form)', () => {
    const digits = prompt(['Red', 'Blue', 'Other (type your answer)'], { pick: 'digit', escape: 'cancels' });
    expect(keys(digits, '2')).toEqual(['2']);
    const form = prompt(['Red', 'Blue', 'Other (type your answer)'], { pick: 'arrows', escape: 'cancels' });
    expect(keys(form, '2')).toEqual([DOWN, '\r']);
    expect(keys(form, '1')).toEqual(['\r']);
  });

  it('arrows start from the option highlighted now, up or down', () => {
    const form = prompt(['A', 'B', 'C', 'D'], { pick: 'arrows', escape: 'cancels' }, { highlighted: 3 });
    expect(keys(form, '1')).toEqual([UP, UP, '\r']);
    expect(keys(form, '4')).toEqual([DOWN, '\r']);
    expect(keys(form, '3')).toEqual(['\r']);
  });

  it('words after a "No": Tab to amend (Claude), in place (Copilot), or as the next message (Codex)', () => {
    const labels = ['Yes', "Yes, and don't ask again", 'No, and tell it what to do differently'];
    const tab = prompt(
      labels,
      { pick: 'digit', words: 'tab', escape: 'denies' },
      { highlighted: 1 },
      'permission',
    );
    expect(keys(tab, 'use mkdir')).toEqual([DOWN, DOWN, '\t', 'use mkdir', '\r']);
    expect(keys(tab, 'no')).toEqual(['3']);
    const inPlace = prompt(labels, { pick: 'digit', words: 'in-place', escape: 'denies' }, {}, 'permission');
    expect(keys(inPlace, 'use mkdir')).toEqual(['3', 'use mkdir', '\r']);
    const next = prompt(labels, { pick: 'digit', words: 'next-message', escape: 'denies' }, {}, 'permission');
    expect(keys(next, 'use mkdir')).toEqual(['3', 'use mkdir', '\r']);
    expect(keys(next, 'no')).toEqual(['3']);
  });

  it('a choice whose text field opens in place takes Enter even without words, or the words it needs', () => {
    const plan = prompt(
      ['Yes', 'Yes, manually', 'Tell Claude what to change'],
      {
        pick: 'digit',
        words: 'in-place',
        escape: 'denies',
      },
      {},
      'plan',
    );
    expect(keys(plan, 'no')).toEqual(['3', '\r']);
    const copilot = prompt(
      ['Yes', 'Yes, always', 'No, and tell Copilot what to do differently'],
      {
        pick: 'digit',
        words: 'in-place',
        defaultWords: 'Denied.',
        escape: 'aborts-turn',
      },
      {},
      'permission',
    );
    expect(keys(copilot, 'no')).toEqual(['3', 'Denied.', '\r']);
    expect(keys(copilot, 'do it later')).toEqual(['3', 'do it later', '\r']);
  });

  it('multi-select: the boxes named end up ticked, then the submit keys of that dialog', () => {
    const labels = ['Cheese', 'Ham', 'Olives', 'Type something'];
    const claude = prompt(
      labels,
      { pick: 'digit', multiSelect: { toggle: 'digit', submit: 'tab-then-1' }, escape: 'denies' },
      {
        boxes: [1, 2, 3],
        ticked: [2],
      },
    );
    // Ham was ticked at the terminal already: it is unticked, Cheese and Olives ticked.
    expect(keys(claude, '1, 3')).toEqual(['1', '2', '3', '\t', '1']);
    expect(keys(claude, 'Cheese, Olives')).toEqual(['1', '2', '3', '\t', '1']);
    expect(keys(claude, '2')).toEqual(['\t', '1']);
    const gemini = prompt(
      labels,
      { pick: 'digit', multiSelect: { toggle: 'digit', submit: 'up-past-first' }, escape: 'cancels' },
      {
        boxes: [1, 2, 3],
      },
    );
    expect(keys(gemini, '1 3')).toEqual(['1', '3', UP, UP, UP, '\r']);
    const copilot = prompt(
      labels,
      { pick: 'arrows', multiSelect: { toggle: 'space', submit: 'enter' }, escape: 'cancels' },
      {
        boxes: [1, 2, 3],
        highlighted: 1,
      },
    );
    expect(keys(copilot, '1,3')).toEqual([' ', DOWN, DOWN, ' ', '\r']);
  });

  it('multi-select: the next box to flip, one at a time from the ticks on screen, then none (the submit)', () => {
    const labels = ['Cheese', 'Ham', 'Olives', 'Type something'];
    const keysOf = {
      pick: 'digit',
      multiSelect: { toggle: 'digit', submit: 'up-past-first' },
      escape: 'cancels',
    } as const;
    const shown = (ticked: number[], highlighted = 1) =>
      prompt(labels, keysOf, { boxes: [1, 2, 3], ticked, highlighted });
    const next = (p: DetectedPrompt, reply: string) => nextBoxFlip(parseReply(reply, p), p);
    expect(next(shown([2]), '1,3')).toEqual({ box: 1, ticks: true, keys: ['1'] });
    expect(next(shown([1, 2], 1), '1,3')).toEqual({ box: 2, ticks: false, keys: ['2'] });
    expect(next(shown([1], 2), '1,3')).toEqual({ box: 3, ticks: true, keys: ['3'] });
    expect(next(shown([1, 3], 3), '1,3')).toBeNull();
    // Space-toggled boxes: arrows from the highlight first.
    const spaced = prompt(
      labels,
      { pick: 'arrows', multiSelect: { toggle: 'space', submit: 'enter' }, escape: 'cancels' },
      { boxes: [1, 2, 3], highlighted: 1 },
    );
    expect(next(spaced, '3')).toEqual({ box: 3, ticks: true, keys: [DOWN, DOWN, ' '] });
    // Not ticks: the words choice, an unknown box, a one-choice question.
    expect(next(shown([]), '4')).toBeNull();
    expect(next(shown([]), '2, 9')).toBeNull();
    expect(next(prompt(['Red', 'Blue'], { pick: 'digit', escape: 'cancels' }), '2')).toBeNull();
  });

  it('a list of boxes is one answer, described by its labels; a list on a one-choice question is words', () => {
    const boxes = prompt(
      ['Cheese', 'Ham', 'Olives', 'Type something'],
      { pick: 'digit', escape: 'cancels' },
      { boxes: [1, 2, 3] },
    );
    const action = parseReply('3, 1', boxes);
    expect(action).toEqual({ type: 'choices', numbers: [1, 3] });
    expect(describeReply(action, boxes.choices)).toBe('1. Cheese, 3. Olives');
    const single = prompt(['Red', 'Blue', 'Type something.'], {
      pick: 'digit',
      words: 'in-place',
      escape: 'cancels',
    });
    expect(parseReply('1, 2', single)).toEqual({ type: 'choice', number: 3, text: '1, 2' });
    expect(() => replyKeys({ type: 'choices', numbers: [1, 2] }, single, 'digit', false)).toThrow(
      KeysRefused,
    );
  });

  it('refuses Esc where it exits the agent (a trust prompt), and types it where it only denies', () => {
    const trust = prompt(
      ['Yes, I trust this folder', 'No, exit'],
      { pick: 'digit', escape: 'exits' },
      {},
      'permission',
    );
    expect(() => keys(trust, 'esc')).toThrow(/exits the agent/);
    const permission = prompt(['Yes', 'No'], { pick: 'digit', escape: 'denies' }, {}, 'permission');
    expect(keys(permission, 'esc')).toEqual(['\x1b']);
  });

  it('menus the generic patterns found keep a digit (and Enter), and words on their own line', () => {
    const menu: DetectedPrompt = {
      kind: 'multiple_choice',
      confidence: 'high',
      excerpt: '',
      detail: '',
      choices: [
        { number: 1, label: 'apple' },
        { number: 2, label: 'Other' },
      ],
      safeDefault: null,
      key: 'k',
    };
    expect(replyKeys(parseReply('1', menu), menu, 'digit-enter', false)).toEqual(['1', '\r']);
    expect(replyKeys(parseReply('pear', menu), menu, 'digit-enter', false)).toEqual([
      '2',
      '\r',
      'pear',
      '\r',
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { decodeButton } from '../../src/channels/callback-data.js';
import {
  outcomeContent,
  promptComponents,
  promptContent,
} from '../../src/channels/discord/prompt-message.js';
import type { PromptView } from '../../src/channels/view-types.js';
import { samplePromptView } from '../support/prompt-views.js';
import { splitMessage } from '../../src/core/split-text.js';

const view = samplePromptView;

const labels = (prompt: PromptView) =>
  promptComponents(prompt).map((row) => row.components.map((b) => b.label));
const values = (prompt: PromptView) =>
  promptComponents(prompt).flatMap((row) => row.components.map((b) => decodeButton(b.custom_id)?.value));

describe('Discord prompt messages', () => {
  it('a subject line says what is asked, as itself (no markdown, links or mentions); none when the text says just that', () => {
    const output = 'compiled module alpha in 3.2 seconds\n'.repeat(3);
    const shell = view({
      kind: 'yes_no',
      choices: [],
      excerpt: `${output}Deploy **prod** to [x](https://e.vil)? (y/n)`,
      detail: `${output}Deploy **prod** to [x](https://e.vil)? (y/n)`,
    });
    expect(promptContent(shell).split('\n')[1]).toBe(
      '**Deploy \\*\\*prod\\*\\* to \\[x\\](https://e.vil)? (y/n)**',
    );
    // So are the session's name (a person may rename it), and the options the agent shows.
    const named = view({
      origin: { host: 'box', agent: 'claude', label: '**big** [x](https://e.vil)', cwd: '/p' },
      choices: [{ number: 1, label: `Yes, ~~and~~ \`rm\` ${'x'.repeat(90)}` }],
    });
    expect(promptContent(named)).toContain('· claude · \\*\\*big\\*\\* \\[x\\](https://e.vil) · box');
    expect(promptContent(named)).toContain('**1.** Yes, \\~\\~and\\~\\~ \\`rm\\` xxx');
    const plain = view({
      kind: 'yes_no',
      choices: [],
      excerpt: 'Continue? (y/n)',
      detail: 'Continue? (y/n)',
    });
    expect(promptContent(plain).split('\n')[1]).toBe('```');
  });

  it("permission: one button per option in the agent's own words, No with a reason, the command in a code block", () => {
    expect(labels(view())).toEqual([
      ['1. Yes', "2. Yes, and don't ask again this session", '3. No'],
      ['No, and say why…'],
    ]);
    expect(values(view())).toEqual(['1', '2', '3', 'o']);
    expect(promptContent(view())).toMatch(
      /🔔 \*\*Permission\*\* · claude · proj · box\n\*\*Bash: touch x\*\*\n```\nBash\n\ntouch x\n```/,
    );
    expect(promptContent(view())).toContain('expires <t:1800000000:R>, then: 3. No');
    expect(labels(view({ allowForSessionChoice: null, textChoice: null }))).toEqual([
      ['1. Yes', "2. Yes, and don't ask again this session", '3. No'],
    ]);
    expect(labels(view({ choices: [], allowForSessionChoice: null, textChoice: null }))).toEqual([
      ['Yes', 'No'],
    ]);
  });

  it('question: one button per option, five to a row, and Other… for the typed answer', () => {
    const choices = ['Red', 'Blue', 'Green', 'Cyan', 'Pink', 'Gray', 'Type something.'].map((label, i) => ({
      number: i + 1,
      label,
      ...(i < 2 ? { description: `The color ${label.toLowerCase()}` } : {}),
    }));
    const question = view({
      kind: 'question',
      choices,
      allowForSessionChoice: null,
      textChoice: 7,
      safeDefault: null,
    });
    expect(labels(question)).toEqual([
      ['1. Red', '2. Blue', '3. Green', '4. Cyan', '5. Pink'],
      ['6. Gray'],
      ['Other…'],
    ]);
    expect(promptContent(question)).toContain('• **Red**: The color red');
  });

  it("plan: the agent's own options and No with feedback; yes/no; unknown gets the ambiguity buttons", () => {
    const plan = view({
      kind: 'plan',
      choices: [
        { number: 1, label: 'Yes' },
        { number: 2, label: 'No' },
      ],
      allowForSessionChoice: null,
      textChoice: 2,
    });
    expect(labels(plan)).toEqual([['1. Yes', '2. No'], ['No, and say why…']]);
    expect(
      labels(
        view({
          kind: 'yes_no',
          choices: [],
          allowForSessionChoice: null,
          textChoice: null,
          safeDefault: 'no',
        }),
      ),
    ).toEqual([['Yes', 'No'], ['Use default (no)']]);
    expect(
      values(view({ kind: 'unknown', choices: [], allowForSessionChoice: null, textChoice: null })),
    ).toEqual(['e', 'c', 'm', 'o']);
  });

  it('a huge command, many described options and a long label still fit in 2,000 characters', () => {
    const choices = Array.from({ length: 12 }, (_, i) => ({
      number: i + 1,
      label: `option ${i}`,
      description: 'd'.repeat(300),
    }));
    for (const prompt of [
      view({
        detail: 'x'.repeat(10_000),
        origin: { host: 'h'.repeat(300), agent: 'claude', label: 'l'.repeat(300), cwd: '/' },
      }),
      view({ kind: 'question', choices, detail: 'q'.repeat(5_000), textChoice: null }),
    ]) {
      const content = promptContent(prompt);
      expect(content.length).toBeLessThanOrEqual(2000);
      expect(content).toContain('expires <t:');
      expect((content.match(/```/g) ?? []).length).toBe(2);
    }
  });

  it('never more than 5 rows of 5 buttons, labels within 80 characters', () => {
    const choices = Array.from({ length: 40 }, (_, i) => ({ number: i + 1, label: 'x'.repeat(100) }));
    const rows = promptComponents(
      view({ kind: 'multiple_choice', choices, textChoice: null, safeDefault: '1' }),
    );
    expect(rows.length).toBeLessThanOrEqual(5);
    for (const row of rows) {
      expect(row.components.length).toBeLessThanOrEqual(5);
      for (const button of row.components) expect(button.label.length).toBeLessThanOrEqual(80);
    }
  });

  it('the outcome removes the expiry line and says who chose what, as a mention', () => {
    const text = outcomeContent(view(), {
      status: 'resolved',
      decidedBy: 'discord:42',
      answer: '1. Yes',
      note: null,
    });
    expect(text).toMatch(/✅ \*\*1\. Yes\*\* by <@42>$/);
    expect(text).not.toContain('expires');
    const denied = outcomeContent(view(), {
      status: 'resolved',
      decidedBy: 'discord:42',
      answer: '3. No',
      note: null,
    });
    expect(denied).toMatch(/❌ \*\*3\. No\*\* by <@42>$/);
    // The message was delivered; the prompt was not answered (its thread archived, its session ended).
    const failed = outcomeContent(view(), {
      status: 'failed',
      decidedBy: null,
      answer: null,
      note: 'thread archived',
    });
    expect(failed).toMatch(/⚠️ Not answered: thread archived$/);
  });
});

describe('splitting long messages', () => {
  it('splits at line breaks within the limit', () => {
    const text = Array.from({ length: 300 }, (_, i) => `line ${i}`).join('\n');
    const pieces = splitMessage(text, 2000);
    expect(pieces.length).toBeGreaterThan(1);
    for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(2000);
    expect(pieces.join('\n')).toBe(text);
  });

  it('keeps code blocks intact: closed at the end of a piece, reopened with the language in the next', () => {
    const code = Array.from({ length: 200 }, (_, i) => `const v${i} = ${i};`).join('\n');
    const pieces = splitMessage(`Here:\n\`\`\`ts\n${code}\n\`\`\`\nDone.`, 2000);
    expect(pieces.length).toBeGreaterThan(1);
    for (const piece of pieces) {
      expect(piece.length).toBeLessThanOrEqual(2000);
      expect((piece.match(/```/g) ?? []).length % 2).toBe(0);
    }
    expect(pieces[1]!.startsWith('```ts\n')).toBe(true);
  });

  it('cuts a single line longer than the limit', () => {
    const pieces = splitMessage('x'.repeat(5000), 2000);
    expect(pieces.join('')).toBe('x'.repeat(5000));
    for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(2000);
  });
});

describe('Telegram keyboards offer the same "Other…"', () => {
  it('a question hides "Type something." behind Other…; a permission adds "No, and say why…"', async () => {
    const { promptKeyboard } = await import('../../src/channels/telegram/prompt-message.js');
    const texts = (prompt: PromptView) =>
      promptKeyboard(prompt)
        .flat()
        .map((b) => b.text);
    const question = view({
      kind: 'question',
      choices: [
        { number: 1, label: 'Red' },
        { number: 2, label: 'Type something.' },
      ],
      allowForSessionChoice: null,
      textChoice: 2,
      safeDefault: null,
    });
    expect(texts(question)).toEqual(['1. Red', '✍️ Other…']);
    expect(texts(view())).toEqual([
      '1. Yes',
      "2. Yes, and don't ask again this session",
      '3. No',
      '✍️ No, and say why…',
      'Use default (3. No)',
    ]);
    expect(decodeButton(promptKeyboard(question).flat()[1]!.callback_data)?.value).toBe('o');
  });
});

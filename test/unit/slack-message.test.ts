import { describe, expect, it } from 'vitest';
import { decodeButton } from '../../src/channels/callback-data.js';
import {
  MESSAGE_BUDGET,
  outcomeMessage,
  promptMessage,
  type Block,
} from '../../src/channels/slack/blocks.js';
import { frameProblem } from '../../src/channels/slack/connection.js';
import { fromSlackText, toMrkdwn } from '../../src/channels/slack/mrkdwn.js';
import type { PromptView } from '../../src/channels/view-types.js';
import { samplePromptView } from '../support/prompt-views.js';

const view = samplePromptView;

const buttons = (blocks: Block[]) =>
  blocks.flatMap((b) => (b['type'] === 'actions' ? (b['elements'] as Block[]) : []));
const labels = (prompt: PromptView) =>
  buttons(promptMessage(prompt).blocks).map((b) => (b['text'] as { text: string }).text);
const texts = (blocks: Block[]) => JSON.stringify(blocks);
/** Every character a message holds in its text fields: what Slack counts toward msg_too_long. */
const size = (blocks: Block[]): number =>
  blocks.reduce((sum: number, block) => {
    const walk = (value: unknown): number =>
      Array.isArray(value)
        ? value.reduce((n: number, v) => n + walk(v), 0)
        : value && typeof value === 'object'
          ? Object.entries(value).reduce(
              (n, [k, v]) => n + (k === 'text' && typeof v === 'string' ? v.length : walk(v)),
              0,
            )
          : 0;
    return sum + walk(block);
  }, 0);

describe('Slack prompt messages', () => {
  it("permission: a button per option in the agent's words, No with a reason, the command in a code block, where and until when", () => {
    const message = promptMessage(view());
    expect(labels(view())).toEqual([
      '1. Yes',
      "2. Yes, and don't ask again this session",
      '3. No',
      'No, and say why…',
    ]);
    const values = buttons(message.blocks).map((b) => decodeButton(String(b['action_id']))?.value);
    expect(values).toEqual(['1', '2', '3', 'o']);
    expect(buttons(message.blocks).map((b) => b['style'])).toEqual([
      'primary',
      'primary',
      'danger',
      undefined,
    ]);
    expect(texts(message.blocks)).toContain('🔔 *Permission* · claude · proj · box');
    expect(texts(message.blocks)).toContain('```\\nBash\\n\\ntouch x\\n```');
    expect(texts(message.blocks)).toContain(
      'Session 9a8b7c6d · /p · expires <!date^1800000000^{date_short_pretty} at {time}|2027-01-15T08:00:00Z>, then: 3. No',
    );
    expect(message.text).toBe('🔔 Permission · claude · proj: Bash: touch x');
  });

  it('the notification line holds what is asked, not the output above it', () => {
    const output = 'compiled module alpha in 3.2 seconds\n'.repeat(3);
    const prompt = view({ kind: 'yes_no', choices: [], excerpt: `${output}Deploy to prod? (y/n)` });
    expect(promptMessage(prompt).text).toBe('🔔 Yes or no · claude · proj: Deploy to prod? (y/n)');
    // The message's first section asks it too, above the full text.
    expect(texts(promptMessage(prompt).blocks)).toContain(
      '🔔 *Yes or no* · claude · proj · box\\n*Deploy to prod? (y/n)*',
    );
  });

  it('yes/no, press Enter, free text and "possibly waiting" prompts get buttons of their own', () => {
    const bare = { choices: [], allowForSessionChoice: null, textChoice: null };
    expect(labels(view({ ...bare, kind: 'yes_no', safeDefault: 'no' }))).toEqual([
      'Yes',
      'No',
      'Use default (no)',
    ]);
    expect(labels(view({ ...bare, kind: 'confirm_enter', safeDefault: null }))).toEqual(['⏎ Press Enter']);
    expect(labels(view({ ...bare, kind: 'free_text', safeDefault: null }))).toEqual(['Answer…']);
    expect(labels(view({ ...bare, kind: 'unknown', safeDefault: null }))).toEqual([
      '⏎ Send Enter',
      '✖ Cancel',
      '📄 Show more',
      'Answer…',
    ]);
  });

  it('a huge diff gives way: the buttons stay, the message stays within the budget, sections within 3,000', () => {
    const detail = `Edit file\n${'- old line with <tags> & ampersands\n'.repeat(2_000)}`;
    const message = promptMessage(view({ detail }));
    expect(labels(view({ detail }))).toContain('No, and say why…');
    expect(size(message.blocks)).toBeLessThanOrEqual(MESSAGE_BUDGET);
    for (const block of message.blocks)
      if (block['type'] === 'section')
        expect((block['text'] as { text: string }).text.length).toBeLessThanOrEqual(3_000);
    expect(texts(message.blocks)).toContain('\\n…\\n```');
    expect(texts(message.blocks)).not.toMatch(/&[a-z]{0,3}\\n…/); // never cut inside an escape
  });

  it('many long options: every button stays (cut to 75), the options are spelled out in full', () => {
    const choices = Array.from({ length: 12 }, (_, i) => ({
      number: i + 1,
      label: `Option ${i + 1} ${'x'.repeat(90)}`,
    }));
    const prompt = view({
      kind: 'multiple_choice',
      choices,
      textChoice: null,
      allowForSessionChoice: null,
      safeDefault: null,
    });
    const shown = labels(prompt);
    expect(shown).toHaveLength(12);
    for (const label of shown) expect(label.length).toBeLessThanOrEqual(75);
    expect(texts(promptMessage(prompt).blocks)).toContain(`*12.* Option 12 ${'x'.repeat(90)}`);
    expect(size(promptMessage(prompt).blocks)).toBeLessThanOrEqual(MESSAGE_BUDGET);
  });

  it('what the agent or the machine names cannot mention or link anyone', () => {
    const prompt = view({
      detail: 'curl <https://evil|x> <!channel>',
      origin: { host: '<!here>', agent: 'claude', label: '<@U123>', cwd: '/p&q' },
      choices: [{ number: 1, label: 'Yes <!everyone>' }],
      textChoice: null,
      allowForSessionChoice: null,
    });
    // mrkdwn is where Slack acts on <…> (plain_text, the buttons' labels, shows it as written).
    const message = promptMessage(prompt);
    const all = [
      message.text,
      ...JSON.stringify(message.blocks).match(/"type":"mrkdwn","text":"(?:[^"\\]|\\.)*"/g)!,
    ]
      .join('\n')
      .replace(/<!date\^[^>]+>/g, '');
    expect(all).not.toMatch(/<[!@#]/);
    expect(all).toContain('&lt;!here&gt;');
    expect(all).toContain('/p&amp;q');
  });

  it('the outcome replaces the buttons and the expiry with what was chosen and by whom', () => {
    const answered = outcomeMessage(view(), {
      status: 'resolved',
      decidedBy: 'slack:U0OWNER001',
      answer: '1. Yes',
      note: null,
    });
    expect(buttons(answered.blocks)).toEqual([]);
    expect(texts(answered.blocks)).toContain('✅ *1. Yes* by <@U0OWNER001>');
    expect(texts(answered.blocks)).not.toContain('expires');
    const denied = outcomeMessage(view(), {
      status: 'resolved',
      decidedBy: 'slack:U0OWNER001',
      answer: '3. No: use <b>',
      note: null,
    });
    expect(texts(denied.blocks)).toContain('❌ *3. No: use &lt;b&gt;* by <@U0OWNER001>');
    const expired = outcomeMessage(view(), {
      status: 'expired',
      decidedBy: 'auto:timeout',
      answer: '3. No',
      note: null,
    });
    expect(texts(expired.blocks)).toContain('⌛ Expired: applied the default, *3. No*');
    const forged = outcomeMessage(view(), {
      status: 'canceled',
      decidedBy: 'slack:<!channel>',
      answer: null,
      note: null,
    });
    expect(texts(forged.blocks)).toContain('✖ Cancelled by slack:&lt;!channel&gt;');
  });
});

describe('mrkdwn', () => {
  it.each([
    ['**bold** and __also__', '*bold* and *also*'],
    ['~~gone~~', '~gone~'],
    ['# Title\n## Sub ##', '*Title*\n*Sub*'],
    ['- one\n  * two', '• one\n  • two'],
    ['[docs](https://example.com/a?b=1&c=2)', '<https://example.com/a?b=1&amp;c=2|docs>'],
    ['a < b && c > d', 'a &lt; b &amp;&amp; c &gt; d'],
    ['```ts\nif (a < b) { **x** }\n```', '```\nif (a &lt; b) { **x** }\n```'],
    ['use `**raw**` here', 'use `**raw**` here'],
    ['<!channel> <@U1>', '&lt;!channel&gt; &lt;@U1&gt;'],
  ])('%j', (markdown, expected) => expect(toMrkdwn(markdown)).toBe(expected));

  it.each([
    ['hi <@U0123ABCD>', 'hi @U0123ABCD'],
    ['see <#C0123ABCD|general>', 'see #general'],
    ['<!here> look', '@here look'],
    ['<https://example.com|the docs> and <https://x.org>', 'https://example.com and https://x.org'],
    ['a &lt;b&gt; &amp;amp;', 'a <b> &amp;'],
  ])('from Slack: %j', (text, expected) => expect(fromSlackText(text)).toBe(expected));
});

describe('socket frames', () => {
  it.each([
    ['{"type":"hello"}', null],
    ['{"type":"disconnect","reason":"refresh_requested"}', null],
    ['{"type":"events_api","envelope_id":"e","payload":{"event":{"type":"message"}}}', null],
    ['{"type":"interactive","envelope_id":"e","payload":{}}', null],
    ['{"type":"events_api","envelope_id":"e","payload":{}}', 'an event without a type'],
    ['{"type":"events_api","envelope_id":"e","payload":{"event":null}}', 'an event without a type'],
    ['{"type":"interactive","payload":{}}', 'no envelope id'],
    ['{"type":"interactive","envelope_id":"e"}', 'no payload'],
    ['{"type":"ws_message"}', 'unknown type "ws_message"'],
    ['{"type":"close"}', 'unknown type "close"'],
    ['[1]', 'unknown type undefined'],
    ['nope', 'not JSON'],
  ])('%s', (frame, problem) => expect(frameProblem(frame, false)).toBe(problem));

  it('binary frames are refused', () => expect(frameProblem(Buffer.from('{}'), true)).toBe('not text'));
});

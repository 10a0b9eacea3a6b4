import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { usageFromStatusLine } from '../../src/drivers/hooks/claude-status-line.js';
import {
  assistantTextBeforeRequestedTool,
  assistantTextBeforeTool,
  contextTokensAtAnswer,
  lastUsageTokens,
  latestTextOfTurn,
  ProgressNotes,
} from '../../src/drivers/hooks/claude-transcript.js';

// Entries as Claude Code 2.1.197 writes them (one per content block; fields trimmed).
const user = (text: string) => JSON.stringify({ type: 'user', message: { role: 'user', content: text } });
const assistant = (id: string, block: object) =>
  JSON.stringify({
    type: 'assistant',
    isSidechain: false,
    message: { id, role: 'assistant', content: [block] },
  });
const text = (id: string, words: string) => assistant(id, { type: 'text', text: words });
const toolUse = (id: string, toolId: string) =>
  assistant(id, { type: 'tool_use', id: toolId, name: 'Bash', input: { command: 'ls' } });
const toolResult = (toolId: string) =>
  JSON.stringify({
    type: 'user',
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolId, content: 'ok' }] },
  });

describe("the agent's text before a tool, from its transcript", () => {
  it('takes the text of the message that holds the tool call', () => {
    const lines = [
      JSON.stringify({ type: 'mode', mode: 'normal' }),
      user('please run TOOL:x'),
      text('m1', 'I will create the file now.'),
      toolUse('m1', 'toolu_1'),
      '',
    ];
    expect(latestTextOfTurn(lines)).toBe('I will create the file now.');
  });

  it('joins the text blocks of one message, and keeps the step text for later tools of the turn', () => {
    const lines = [
      user('go'),
      text('m1', 'First I look.'),
      text('m1', 'Then I change it.'),
      toolUse('m1', 'toolu_1'),
      toolResult('toolu_1'),
      toolUse('m2', 'toolu_2'),
    ];
    expect(latestTextOfTurn(lines)).toBe('First I look.\n\nThen I change it.');
  });

  it("never reaches back past the person's message: an older turn's answer is not progress", () => {
    const lines = [user('hello'), text('m1', 'Hello!'), user('run it'), toolUse('m2', 'toolu_1')];
    expect(latestTextOfTurn(lines)).toBeNull();
  });

  it('ignores subagents, thinking and broken lines', () => {
    const lines = [
      user('go'),
      text('m1', 'Main text.'),
      JSON.stringify({
        type: 'assistant',
        isSidechain: true,
        message: { id: 's', content: [{ type: 'text', text: 'sub' }] },
      }),
      assistant('m1', { type: 'thinking', thinking: 'hmm' }),
      '{"type":"assist',
      toolUse('m1', 'toolu_1'),
    ];
    expect(latestTextOfTurn(lines)).toBe('Main text.');
  });

  describe('reading the file', () => {
    let dir: string;
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('waits for Claude to write the tool call (it flushes its transcript late), then reads', async () => {
      dir = mkdtempSync(path.join(tmpdir(), 'ab-transcript-'));
      const file = path.join(dir, 't.jsonl');
      writeFileSync(file, `${user('old')}\n${text('m0', 'Old answer.')}\n`);
      const reading = assistantTextBeforeTool(file, 'toolu_9', 2_000);
      setTimeout(
        () =>
          appendFileSync(file, `${user('new')}\n${text('m1', 'Now this.')}\n${toolUse('m1', 'toolu_9')}\n`),
        120,
      );
      expect(await reading).toBe('Now this.');
    });

    it('gives up (null) when the tool call never shows, and when there is no file', async () => {
      dir = mkdtempSync(path.join(tmpdir(), 'ab-transcript-'));
      const file = path.join(dir, 't.jsonl');
      writeFileSync(file, `${user('old')}\n${text('m0', 'Old answer.')}\n`);
      expect(await assistantTextBeforeTool(file, 'toolu_9', 100)).toBeNull();
      expect(await assistantTextBeforeTool(path.join(dir, 'missing.jsonl'), 'toolu_9', 50)).toBeNull();
    });

    it("finds a permission request's call by its tool and input (the request names no id)", async () => {
      dir = mkdtempSync(path.join(tmpdir(), 'ab-transcript-'));
      const file = path.join(dir, 't.jsonl');
      const call = (id: string, command: string) =>
        assistant(id, { type: 'tool_use', id: `toolu_${id}`, name: 'Bash', input: { command } });
      const lines = [
        user('tidy up'),
        text('m1', 'First I list the files.'),
        call('m1', 'ls'),
        toolResult('toolu_m1'),
        text('m2', 'Now I remove the old one.'),
        call('m2', 'rm old.txt'),
      ];
      writeFileSync(file, lines.join('\n') + '\n');
      // Claude may add its defaults to the input the request carries: what the model wrote must be in it.
      const rm = { command: 'rm old.txt', timeout: 120000 };
      expect(await assistantTextBeforeRequestedTool(file, 'Bash', rm)).toBe('Now I remove the old one.');
      expect(await assistantTextBeforeRequestedTool(file, 'Bash', { command: 'ls' })).toBe(
        'First I list the files.',
      );
      expect(await assistantTextBeforeRequestedTool(file, 'Bash', { command: 'rm new.txt' })).toBeNull();
      expect(await assistantTextBeforeRequestedTool(file, 'Write', rm)).toBeNull();
      expect(await assistantTextBeforeRequestedTool(path.join(dir, 'missing.jsonl'), 'Bash', rm)).toBeNull();
    });
  });
});

describe('progress notes', () => {
  it('posts each distinct text once, with 🔄', () => {
    const notes = new ProgressNotes();
    expect(notes.take('I will create the file now.')).toBe('🔄 I will create the file now.');
    expect(notes.take('I will create the file now.')).toBeNull();
    expect(notes.take('  I will create the file now.\n')).toBeNull();
    expect(notes.take('Something else.')).toBe('🔄 Something else.');
    expect(notes.take('   ')).toBeNull();
  });
});

describe("Claude Code's status line payload", () => {
  it('reads model, context, cost and rate limits (resets_at in Unix seconds)', () => {
    expect(
      usageFromStatusLine({
        model: { id: 'claude-sonnet-5', display_name: 'Sonnet 5' },
        context_window: { used_percentage: 1, context_window_size: 200_000 },
        cost: { total_cost_usd: 0.0058 },
        rate_limits: {
          five_hour: { used_percentage: 45, resets_at: 1795316539 },
          seven_day: { used_percentage: 12, resets_at: '2026-11-29T00:00:00Z' },
        },
      }),
    ).toEqual({
      model: 'Sonnet 5',
      contextPercent: 1,
      contextWindow: 200_000,
      costUsd: 0.0058,
      session: { usedPercent: 45, resetsAt: 1795316539_000 },
      weekly: { usedPercent: 12, resetsAt: Date.parse('2026-11-29T00:00:00Z') },
    });
  });

  it('leaves out what is missing or malformed (before the first answer, context is null)', () => {
    expect(
      usageFromStatusLine({
        model: { id: 'claude-opus-4-8[1m]' },
        context_window: { used_percentage: null },
        rate_limits: { five_hour: { resets_at: 5 } },
      }),
    ).toEqual({ model: 'claude-opus-4-8[1m]' });
    expect(usageFromStatusLine({})).toEqual({});
  });
});

describe('the context at the answer a Stop hook reports', () => {
  const answered = (id: string, words: string, usage: object) =>
    JSON.stringify({
      type: 'assistant',
      isSidechain: false,
      message: { id, role: 'assistant', content: [{ type: 'text', text: words }], usage },
    });
  const usage = {
    input_tokens: 1_000,
    cache_creation_input_tokens: 2_000,
    cache_read_input_tokens: 30_000,
    output_tokens: 500,
  };

  it("counts the last answer's input, cache and output tokens; a sidechain's do not count", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ab-ctx-'));
    const file = path.join(dir, 'transcript.jsonl');
    writeFileSync(
      file,
      [user('hi'), answered('m1', 'first', { input_tokens: 10, output_tokens: 5 })].join('\n') + '\n',
    );
    appendFileSync(file, answered('m2', 'The "answer" is\nready', usage) + '\n');
    appendFileSync(
      file,
      JSON.stringify({
        type: 'assistant',
        isSidechain: true,
        message: { id: 'x', usage: { input_tokens: 9e6 } },
      }) + '\n',
    );
    expect(await contextTokensAtAnswer(file, 'The "answer" is\nready', 0)).toBe(33_500);
    // Its words not written yet: the wait gives up and counts what is there.
    expect(lastUsageTokens([user('hi')])).toBeNull();
    expect(await contextTokensAtAnswer(path.join(dir, 'missing.jsonl'), 'x', 0)).toBeNull();
    rmSync(dir, { recursive: true, force: true });
  });

  it("the status line gives the window's size", () => {
    expect(
      usageFromStatusLine({ context_window: { context_window_size: 200_000, used_percentage: null } }),
    ).toEqual({
      contextWindow: 200_000,
    });
  });
});

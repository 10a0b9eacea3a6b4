import { describe, expect, it } from 'vitest';
import type { ProtocolEffect } from '../../src/drivers/structured/effects.js';
import {
  effectsOfClaudeMessage,
  newClaudeStreamState,
} from '../../src/drivers/structured/claude/stream-json-events.js';
import {
  hookReply,
  permissionPrompt,
  permissionReply,
  planDecision,
  planPrompt,
  questionAnswer,
  questionPrompt,
} from '../../src/drivers/structured/claude/stream-json-prompts.js';
import { canUseToolRequest, questionInput } from '../../src/drivers/structured/claude/stream-json-wire.js';
import { fromAgent } from '../support/transcripts.js';

const PROTOCOL = 'claude-stream-json';

function replay(name: string): ProtocolEffect[] {
  const state = newClaudeStreamState();
  return fromAgent(PROTOCOL, name).flatMap((message) => effectsOfClaudeMessage(message, state));
}

function controlRequest(
  name: string,
  subtype: string,
): { request_id: string; request: Record<string, unknown> } {
  const found = fromAgent(PROTOCOL, name).find(
    (m) => m.type === 'control_request' && (m.request as { subtype?: string }).subtype === subtype,
  );
  if (!found) throw new Error(`${name} has no ${subtype}`);
  return found as { request_id: string; request: Record<string, unknown> };
}

describe('Claude stream-json → events (recorded with Claude Code 2.1.197)', () => {
  it('hello: its words, its session id, and its model, context window and cost for the footer', () => {
    const effects = replay('claude-hello');
    expect(effects).toContainEqual({
      type: 'say',
      text: 'Hello from the fake model! You said: hello fixture',
    });
    expect(effects.find((e) => e.type === 'agent_session')).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    const usage = effects.find((e) => e.type === 'status');
    expect(usage).toMatchObject({ usage: { model: 'claude-opus-4-8[1m]', contextWindow: 1_000_000 } });
    expect((usage as { usage: { costUsd: number } }).usage.costUsd).toBeGreaterThan(0);
  });

  it('a tool: what it said before, the tool starting and ending; no diff for a command', () => {
    const effects = replay('claude-permission-allow');
    const kinds = effects.map((e) => (e.type === 'activity' ? `${e.type}:${e.phase}` : e.type));
    expect(kinds.indexOf('say')).toBeLessThan(kinds.indexOf('activity:start'));
    expect(kinds.indexOf('activity:start')).toBeLessThan(kinds.indexOf('activity:end'));
    expect(effects.find((e) => e.type === 'activity')).toMatchObject({
      tool: 'Bash',
      text: expect.stringContaining('touch /home/dev/proj/fx.txt'),
    });
    expect(effects.some((e) => e.type === 'message')).toBe(false);
  });

  it('a permission: Claude’s own options, the command in full, No as the safe default', () => {
    const { request_id, request } = controlRequest('claude-permission-allow', 'can_use_tool');
    const parsed = canUseToolRequest.parse(request);
    const prompt = permissionPrompt(parsed, request_id);
    expect(prompt).toMatchObject({
      kind: 'permission',
      confidence: 'exact',
      safeDefault: { type: 'choice', number: 3 },
    });
    expect(prompt.choices.map((c) => c.label)).toEqual([
      'Yes',
      expect.stringMatching(/^Yes, and always allow Bash\(touch \/home\/dev\/proj\/fx\.txt\)/),
      'No',
    ]);
    expect(prompt.detail).toContain('touch /home/dev/proj/fx.txt');
    expect(permissionReply(parsed, { type: 'choice', number: 1 }, 'x')).toEqual({
      behavior: 'allow',
      updatedInput: parsed.input,
    });
    expect(permissionReply(parsed, { type: 'choice', number: 2 }, 'x')).toMatchObject({
      updatedPermissions: parsed.permission_suggestions,
    });
  });

  it('a No with words: denied with the words, and Claude answers with them (the recorded reply reached it)', () => {
    const { request } = controlRequest('claude-permission-deny', 'can_use_tool');
    const reply = permissionReply(
      canUseToolRequest.parse(request),
      { type: 'choice', number: 3, text: 'use fy.txt' },
      'telegram:1',
    );
    expect(reply).toEqual({ behavior: 'deny', message: 'Denied by telegram:1, who says: use fy.txt' });
    const effects = replay('claude-permission-deny');
    expect(effects).toContainEqual(
      expect.objectContaining({ type: 'activity', phase: 'end', text: expect.stringContaining('(failed)') }),
    );
    expect(effects).toContainEqual({ type: 'say', text: expect.stringContaining('who says: use fy.txt') });
  });

  it('AskUserQuestion through the hook: its options and "Type something.", answered in updatedInput', () => {
    const { request } = controlRequest('claude-question', 'hook_callback');
    const input = (request.input as { tool_input: unknown }).tool_input;
    const question = questionInput.parse(input).questions[0]!;
    const prompt = questionPrompt(question, 'toolu_1', 0);
    expect(prompt).toMatchObject({ kind: 'question', safeDefault: { type: 'cancel' } });
    expect(prompt.choices.map((c) => c.label)).toEqual(['Red', 'Blue', 'Type something.']);
    expect(questionAnswer(question, { type: 'choice', number: 2 })).toBe('Blue');
    expect(questionAnswer(question, { type: 'choice', number: 3, text: 'Green' })).toBe('Green');
    expect(questionAnswer(question, { type: 'cancel' })).toBeNull();
    expect(replay('claude-question')).toContainEqual({
      type: 'say',
      text: expect.stringContaining('"Which color do you prefer?"="Blue"'),
    });
  });

  it('ExitPlanMode: the plan in full, keep planning by default; a hook answer allows or denies', () => {
    const prompt = planPrompt({ plan: '# Plan\n1. Edit a\n2. Test' }, 'toolu_2');
    expect(prompt).toMatchObject({
      kind: 'plan',
      detail: '# Plan\n1. Edit a\n2. Test',
      safeDefault: { type: 'choice', number: 3 },
    });
    expect(planDecision({ type: 'choice', number: 1 })).toBe('acceptEdits');
    expect(planDecision({ type: 'choice', number: 2 })).toBe('default');
    expect(planDecision({ type: 'choice', number: 3, text: 'smaller steps' })).toBeNull();
    expect(hookReply({ allow: false, reason: 'no' })).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: 'no',
      },
    });
  });

  it('an edit that went through is a diff in chat; a plan (TodoWrite) is a list, again only when its steps change', () => {
    const state = newClaudeStreamState();
    const assistant = (content: unknown[]) => ({
      type: 'assistant',
      parent_tool_use_id: null,
      message: { content },
    });
    const edit = {
      type: 'tool_use',
      id: 't1',
      name: 'Edit',
      input: { file_path: '/p/a.ts', old_string: 'let x = 1;\n', new_string: 'const x = 1;\n' },
    };
    effectsOfClaudeMessage(assistant([edit]), state);
    const result = effectsOfClaudeMessage(
      {
        type: 'user',
        parent_tool_use_id: null,
        message: { content: [{ type: 'tool_result', tool_use_id: 't1', is_error: false }] },
      },
      state,
    );
    const message = result.find((e) => e.type === 'message') as { text: string };
    expect(message.text).toContain('✏️ /p/a.ts');
    expect(message.text).toMatch(/-let x = 1;\n\+const x = 1;/);
    const todos = (status: string) =>
      assistant([
        {
          type: 'tool_use',
          id: `t${status}`,
          name: 'TodoWrite',
          input: {
            todos: [
              { content: 'Write it', status },
              { content: 'Test it', status: 'pending' },
            ],
          },
        },
      ]);
    const first = effectsOfClaudeMessage(todos('pending'), state).filter((e) => e.type === 'message');
    expect(first).toEqual([
      { type: 'message', source: 'protocol', text: '📋 Plan\n1. ⬜ Write it\n2. ⬜ Test it' },
    ]);
    expect(effectsOfClaudeMessage(todos('completed'), state).filter((e) => e.type === 'message')).toEqual([]);
  });

  it('a subagent’s words stay inside it; junk and unknown messages are ignored', () => {
    const state = newClaudeStreamState();
    expect(
      effectsOfClaudeMessage(
        {
          type: 'assistant',
          parent_tool_use_id: 'x',
          message: { content: [{ type: 'text', text: 'inner' }] },
        },
        state,
      ),
    ).toEqual([]);
    expect(effectsOfClaudeMessage({ type: 'assistant', message: 'not a message' }, state)).toEqual([]);
    expect(effectsOfClaudeMessage({ type: 'stream_event' }, state)).toEqual([]);
  });

  it('a turn a person stopped is not an error; a failed one says why', () => {
    const state = newClaudeStreamState();
    const failed = { type: 'result', subtype: 'error_during_execution', is_error: true, errors: ['boom'] };
    expect(effectsOfClaudeMessage(failed, state)).toContainEqual({
      type: 'message',
      source: 'protocol',
      text: '⚠️ Claude Code: boom',
    });
    state.cancelled = true;
    expect(effectsOfClaudeMessage(failed, state).some((e) => e.type === 'message')).toBe(false);
  });
});

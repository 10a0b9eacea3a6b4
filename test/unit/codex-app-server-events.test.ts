import { describe, expect, it } from 'vitest';
import {
  approvalDecision,
  approvalDecisions,
  approvalPrompt,
  effectsOfNotification,
  isRefusal,
  newCodexState,
  userInputAnswer,
  userInputPrompt,
  type ApprovalRequest,
} from '../../src/drivers/structured/codex/app-server-events.js';
import type { ProtocolEffect } from '../../src/drivers/structured/effects.js';
import type { ServerNotification } from '../../src/drivers/structured/codex/protocol/index.js';
import { parseReply } from '../../src/core/prompt.js';
import { fromAgent, transcript } from '../support/transcripts.js';

const PROTOCOL = 'codex-app-server';

function replay(name: string): ProtocolEffect[] {
  const state = newCodexState();
  return fromAgent(PROTOCOL, name)
    .filter((m) => typeof m.method === 'string' && m.id === undefined)
    .flatMap((m) => effectsOfNotification(m as unknown as ServerNotification, state));
}

const approval = (name: string) =>
  fromAgent(PROTOCOL, name).find(
    (m) => m.method === 'item/commandExecution/requestApproval',
  ) as unknown as ApprovalRequest;

describe('Codex app-server → events (recorded with Codex 0.169)', () => {
  it('an approval: the command, Codex’s own decisions in its order, the refusal as the safe default', () => {
    const request = approval('codex-approval-allow');
    const prompt = approvalPrompt(request, newCodexState(), 'k');
    expect(prompt.choices.map((c) => c.label)).toEqual([
      'Yes, proceed',
      "Yes, and don't ask again for commands that start with `touch fx.txt`",
      'No, and tell Codex what to do differently',
    ]);
    expect(prompt).toMatchObject({
      kind: 'permission',
      confidence: 'exact',
      safeDefault: { type: 'choice', number: 3 },
    });
    expect(prompt.detail).toContain('touch fx.txt');
    expect(prompt.detail).toContain('Why: Create the file');
    const decisions = approvalDecisions(request);
    expect(approvalDecision(decisions, parseReply('1', prompt))).toBe('accept');
    expect(approvalDecision(decisions, parseReply('2', prompt))).toEqual({
      acceptWithExecpolicyAmendment: { execpolicy_amendment: ['touch', 'fx.txt'] },
    });
    const no = approvalDecision(decisions, parseReply('no', prompt));
    expect(no).toBe('cancel');
    expect(isRefusal(no)).toBe(true);
  });

  it('the recorded answers are what Codex got: accept, and cancel for a No', () => {
    const answer = (name: string) =>
      transcript(PROTOCOL, name).find(
        (l) =>
          l.from === 'client' &&
          'result' in l.message &&
          (l.message.result as { decision?: unknown }).decision,
      );
    expect(answer('codex-approval-allow')!.message.result).toEqual({ decision: 'accept' });
    expect(answer('codex-approval-deny')!.message.result).toEqual({ decision: 'cancel' });
  });

  it('file changes and older servers: accept, accept for the session, decline, cancel', () => {
    const request: ApprovalRequest = {
      method: 'item/fileChange/requestApproval',
      params: { threadId: 't', turnId: 'u', itemId: 'i', startedAtMs: 0, reason: null, grantRoot: null },
    };
    const state = newCodexState();
    state.files.set('i', [{ path: '/p/a.txt', kind: { type: 'add' }, diff: '+hello\n' }]);
    const prompt = approvalPrompt(request, state, 'k');
    expect(prompt.choices.map((c) => c.label)).toEqual([
      'Yes, proceed',
      "Yes, and don't ask again this session",
      'No, continue without it',
      'No, and tell Codex what to do differently',
    ]);
    expect(prompt.allowForSessionChoice).toBe(2);
    expect(prompt.detail).toContain('+hello');
    expect(approvalDecision(approvalDecisions(request), parseReply('session', prompt))).toBe(
      'acceptForSession',
    );
    expect(approvalDecision(approvalDecisions(request), parseReply('no', prompt))).toBe('decline');
  });

  it('its words, the command starting and ending, token use against the context window', () => {
    const effects = replay('codex-approval-allow');
    expect(effects).toContainEqual({ type: 'say', text: 'I will create the file now.' });
    expect(effects).toContainEqual(
      expect.objectContaining({
        type: 'activity',
        phase: 'start',
        tool: 'command',
        text: expect.stringContaining('touch fx.txt'),
      }),
    );
    expect(effects).toContainEqual(
      expect.objectContaining({ type: 'activity', phase: 'end', tool: 'command' }),
    );
    const status = effects.filter((e) => e.type === 'status').at(-1) as { usage: { contextWindow: number } };
    expect(status.usage.contextWindow).toBeGreaterThan(100_000);
  });

  it('rate limits (Unix seconds) and a plan; a change nobody approved is a diff in chat', () => {
    const state = newCodexState();
    const limits = {
      method: 'account/rateLimits/updated',
      params: {
        rateLimits: {
          limitId: 'codex',
          limitName: null,
          normalModelSlug: null,
          primary: { usedPercent: 42, windowDurationMins: 300, resetsAt: 1_800_000_000 },
          secondary: null,
          credits: null,
          individualLimit: null,
          spendControlReached: null,
          planType: null,
          rateLimitReachedType: null,
        },
      },
    } as unknown as ServerNotification;
    expect(effectsOfNotification(limits, state)).toEqual([
      { type: 'status', usage: { session: { usedPercent: 42, resetsAt: 1_800_000_000_000 } } },
    ]);
    const plan = {
      method: 'turn/plan/updated',
      params: {
        threadId: 't',
        turnId: 'u',
        explanation: null,
        plan: [{ step: 'Read', status: 'inProgress' }],
      },
    } as unknown as ServerNotification;
    expect(effectsOfNotification(plan, state)).toEqual([
      { type: 'message', source: 'protocol', text: '📋 Plan\n1. ⏳ Read' },
    ]);
    const change = {
      type: 'fileChange',
      id: 'f',
      changes: [
        { path: '/p/b.txt', kind: { type: 'update', move_path: null }, diff: '@@ -1 +1 @@\n-a\n+b\n' },
      ],
      status: 'completed',
    };
    const done = effectsOfNotification(
      {
        method: 'item/completed',
        params: { item: change, threadId: 't', turnId: 'u', completedAtMs: 0 },
      } as unknown as ServerNotification,
      state,
    );
    expect(done).toContainEqual({
      type: 'message',
      source: 'protocol',
      text: '✏️ /p/b.txt\n```diff\n@@ -1 +1 @@\n-a\n+b\n```',
    });
  });

  it('request_user_input: options and words; a secret question is marked secret', () => {
    const question = {
      id: 'q',
      header: 'Env',
      question: 'Which environment?',
      isOther: true,
      isSecret: false,
      options: [{ label: 'staging', description: 'safe' }],
    };
    const prompt = userInputPrompt(question, 'k');
    expect(prompt.choices.map((c) => c.label)).toEqual(['staging', 'Type something.']);
    expect(userInputAnswer(question, { type: 'choice', number: 1 })).toBe('staging');
    expect(userInputAnswer(question, { type: 'choice', number: 2, text: 'prod' })).toBe('prod');
    const secret = userInputPrompt({ ...question, isSecret: true, options: null }, 'k');
    expect(secret).toMatchObject({ kind: 'free_text', secret: true });
  });
});

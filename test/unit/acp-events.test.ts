import type { RequestPermissionRequest, SessionUpdate } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import {
  effectsOfUpdate,
  isRejection,
  newAcpState,
  permissionOutcome,
  permissionPrompt,
} from '../../src/drivers/structured/acp/acp-events.js';
import type { ProtocolEffect } from '../../src/drivers/structured/effects.js';
import { parseReply } from '../../src/core/prompt.js';
import { fromAgent } from '../support/transcripts.js';

const updates = (name: string) =>
  fromAgent('acp', name)
    .filter((m) => m.method === 'session/update')
    .map((m) => (m.params as { update: SessionUpdate }).update);

const permission = (name: string) =>
  fromAgent('acp', name).find((m) => m.method === 'session/request_permission')!
    .params as RequestPermissionRequest;

function replay(name: string, state = newAcpState()): ProtocolEffect[] {
  return updates(name).flatMap((update) => effectsOfUpdate(update, state));
}

describe('ACP → events (recorded with Gemini CLI 0.61 and Copilot CLI 1.0.102)', () => {
  it('Gemini’s permission: its own option names, "allow once" first (Gemini lists "always" first), Reject by default', () => {
    const request = permission('gemini-permission-allow');
    expect(request.options[0]!.kind).toBe('allow_always');
    const prompt = permissionPrompt(request, 'k');
    expect(prompt.choices.map((c) => c.label)).toEqual(['Allow', 'Allow for this session', 'Reject']);
    expect(prompt).toMatchObject({
      kind: 'permission',
      confidence: 'exact',
      allowForSessionChoice: 2,
      safeDefault: { type: 'choice', number: 3 },
    });
    expect(prompt.detail).toContain('touch fx.txt');
    // "yes" from any channel is the first option: allow once, never the session-wide grant.
    expect(permissionOutcome(request, parseReply('yes', prompt))).toEqual({
      outcome: { outcome: 'selected', optionId: 'proceed_once' },
    });
    expect(permissionOutcome(request, parseReply('session', prompt))).toEqual({
      outcome: { outcome: 'selected', optionId: 'proceed_always' },
    });
    const no = permissionOutcome(request, parseReply('no', prompt));
    expect(isRejection(request, no)).toBe(true);
    expect(permissionOutcome(request, { type: 'cancel' })).toEqual({ outcome: { outcome: 'cancelled' } });
  });

  it('words for a Gemini permission choose Reject (the words then go to the agent as its next message)', () => {
    const request = permission('gemini-permission-deny');
    const prompt = permissionPrompt(request, 'k');
    const action = parseReply('use fy.txt instead', prompt);
    expect(action).toEqual({ type: 'choice', number: 3, text: 'use fy.txt instead' });
    expect(isRejection(request, permissionOutcome(request, action))).toBe(true);
  });

  it('Copilot: its options, the tool call starting and ending, its words, context use from usage_update', () => {
    const request = permission('copilot-permission-allow');
    expect(permissionPrompt(request, 'k').choices.map((c) => c.label)).toEqual([
      'Allow once',
      'Always allow',
      'Deny',
    ]);
    const effects = replay('copilot-permission-allow');
    expect(effects).toContainEqual({ type: 'say', text: 'I will create the file now.' });
    expect(effects).toContainEqual(
      expect.objectContaining({
        type: 'activity',
        phase: 'start',
        tool: 'execute',
        text: expect.stringContaining('touch fx.txt'),
      }),
    );
    expect(effects).toContainEqual(expect.objectContaining({ type: 'activity', phase: 'end' }));
    const status = effects.filter((e) => e.type === 'status').at(-1) as {
      usage: { contextWindow: number; contextPercent: number };
    };
    expect(status.usage.contextWindow).toBe(64_000);
    expect(status.usage.contextPercent).toBeGreaterThan(0);
  });

  it('an edit: the diff in the permission prompt, and not again once allowed; a change nobody saw is a diff in chat', () => {
    const prompt = permissionPrompt(permission('gemini-edit'), 'k');
    expect(prompt.detail).toMatch(/\+\+\+ \/home\/dev\/proj\/fx\.txt[\s\S]*\+hello/);
    const shown = newAcpState();
    const id = permission('gemini-edit').toolCall.toolCallId;
    shown.shown.add(id);
    expect(replay('gemini-edit', shown).filter((e) => e.type === 'message')).toEqual([]);
    const unseen = replay('gemini-edit').filter((e) => e.type === 'message') as Array<{ text: string }>;
    expect(unseen).toHaveLength(1);
    expect(unseen[0]!.text).toMatch(/^✏️ \/home\/dev\/proj\/fx\.txt\n```diff\n[\s\S]*\+hello\n```$/);
  });

  it('a plan is a list, posted again only when its steps change; costs in USD go to the footer', () => {
    const state = newAcpState();
    const plan = (status: 'pending' | 'completed') =>
      ({
        sessionUpdate: 'plan',
        entries: [
          { content: 'Read', priority: 'high', status },
          { content: 'Fix', priority: 'high', status: 'pending' },
        ],
      }) as SessionUpdate;
    expect(effectsOfUpdate(plan('pending'), state)).toEqual([
      { type: 'message', source: 'protocol', text: '📋 Plan\n1. ⬜ Read\n2. ⬜ Fix' },
    ]);
    expect(effectsOfUpdate(plan('completed'), state)).toEqual([]);
    const usage = effectsOfUpdate(
      {
        sessionUpdate: 'usage_update',
        used: 500,
        size: 1000,
        cost: { amount: 0.25, currency: 'USD' },
      } as SessionUpdate,
      state,
    );
    expect(usage).toEqual([
      { type: 'status', usage: { contextWindow: 1000, contextPercent: 50, costUsd: 0.25 } },
    ]);
  });
});

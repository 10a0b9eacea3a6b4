import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import type { ConversationUpdate } from '../../src/channels/web/conversation-types.js';
import type { AgentEvent } from '../../src/core/events.js';
import { effectsOfUpdate, newAcpState } from '../../src/drivers/structured/acp/acp-events.js';
import {
  editMessage,
  planText,
  proposedChange,
  readEditMessage,
  readPlanText,
} from '../../src/drivers/structured/edit-text.js';
import type { ProtocolEffect } from '../../src/drivers/structured/effects.js';
import { ConversationLog } from '../../src/sessions/conversation-log.js';
import { FakeClock } from '../support/fake-clock.js';
import { fromAgent } from '../support/transcripts.js';

const clock = new FakeClock();
const log = (limits?: ConstructorParameters<typeof ConversationLog>[3]) =>
  new ConversationLog('s1', clock, null, limits);

/** A converter's effects as the driver passes them on (what it says becomes one message). */
function asEvents(effects: ProtocolEffect[]): AgentEvent[] {
  return effects.flatMap((effect): AgentEvent[] =>
    effect.type === 'say'
      ? [{ type: 'message', text: effect.text, source: 'protocol' }]
      : effect.type === 'agent_session'
        ? []
        : [effect],
  );
}

describe('edit-text read back', () => {
  it('a change message gives its file and diff back; proposed ones say so; other text is none', () => {
    const diff = '--- a.txt\n+++ a.txt\n@@ -1 +1 @@\n-old\n+new\n```\n+fence inside';
    expect(readEditMessage(editMessage('src/a.txt', diff))).toEqual({
      file: 'src/a.txt',
      diff,
      proposed: false,
    });
    const long = `+${'x'.repeat(1300)}`;
    expect(readEditMessage(proposedChange('b.txt', long)!)).toEqual({
      file: 'b.txt',
      diff: long,
      proposed: true,
    });
    expect(readEditMessage('✏️ just words')).toBeNull();
    expect(readEditMessage('I changed ✏️ a.txt\n```diff\n+x\n```')).toBeNull();
  });

  it('a plan message gives its steps back with their progress; a look-alike is none', () => {
    const steps = [
      { content: 'Read the code', status: 'completed' },
      { content: 'Fix it', status: 'in_progress' },
      { content: 'Test', status: 'pending' },
    ] as const;
    expect(readPlanText(planText(steps))).toEqual(steps);
    // Codex says inProgress; it reads back as in_progress.
    expect(readPlanText(planText([{ content: 'Run', status: 'inProgress' }]))).toEqual([
      { content: 'Run', status: 'in_progress' },
    ]);
    expect(readPlanText('📋 Plan\n1. ✅ done\nand some prose')).toBeNull();
    expect(readPlanText('📋 Plan\n2. ✅ out of order')).toBeNull();
    expect(readPlanText('📋 Plan')).toBeNull();
  });
});

describe('a structured session as a conversation', () => {
  it("the agent's words, a tool card that starts and ends, its diff (Gemini CLI's recorded edit)", () => {
    const conversation = log();
    const updates = fromAgent('acp', 'gemini-edit')
      .filter((m) => m.method === 'session/update')
      .map((m) => (m.params as { update: SessionUpdate }).update);
    const state = newAcpState();
    for (const update of updates)
      for (const event of asEvents(effectsOfUpdate(update, state))) conversation.record(event);
    const entries = conversation.snapshot(true).entries;
    const tools = entries.filter((e) => e.kind === 'tool');
    expect(tools).toHaveLength(1);
    expect(tools[0]).toMatchObject({ status: 'done', tool: 'edit' });
    const diff = entries.find((e) => e.kind === 'diff');
    expect(diff).toMatchObject({ file: '/home/dev/proj/fx.txt', proposed: false });
    expect(diff && 'diff' in diff && diff.diff).toMatch(/^\+hello$/m);
    expect(entries.map((e) => e.id)).toEqual([...entries.keys()].map((i) => i + 1));
  });

  it('a plan is a list of steps; a tool that failed ends its own card, not another one', () => {
    const conversation = log();
    const seen: ConversationUpdate[] = [];
    conversation.subscribe((update) => seen.push(update));
    const state = newAcpState();
    const plan = {
      sessionUpdate: 'plan',
      entries: [
        { content: 'Read', priority: 'high', status: 'completed' },
        { content: 'Fix', priority: 'high', status: 'in_progress' },
      ],
    } as SessionUpdate;
    for (const event of asEvents(effectsOfUpdate(plan, state))) conversation.record(event);
    conversation.record({ type: 'activity', phase: 'start', tool: 'execute', text: 'ls' });
    conversation.record({ type: 'activity', phase: 'start', tool: 'execute', text: 'rm x' });
    conversation.record({ type: 'activity', phase: 'end', tool: 'execute', text: 'rm x (failed)' });
    conversation.record({ type: 'activity', phase: 'end', tool: 'execute', text: 'ls' });
    const entries = conversation.snapshot(true).entries;
    expect(entries[0]).toMatchObject({
      kind: 'plan',
      steps: [
        { text: 'Read', status: 'completed' },
        { text: 'Fix', status: 'in_progress' },
      ],
    });
    expect(entries.slice(1)).toMatchObject([
      { kind: 'tool', text: 'ls', status: 'done' },
      { kind: 'tool', text: 'rm x (failed)', status: 'failed' },
    ]);
    // Each change of a card is said again under the same id.
    const cardUpdates = seen.filter((u) => u.type === 'entry' && u.entry.kind === 'tool');
    expect(cardUpdates.map((u) => u.type === 'entry' && u.entry.id)).toEqual([2, 3, 3, 2]);
  });

  it('status and usage for the footer; at the end, what still ran failed and nothing more can be sent', () => {
    const conversation = log();
    conversation.record({ type: 'status', state: 'busy' });
    conversation.record({ type: 'status', usage: { model: 'm', contextPercent: 12, costUsd: 0.5 } });
    conversation.record({ type: 'activity', phase: 'start', tool: 'execute', text: 'sleep 100' });
    expect(conversation.snapshot(true)).toMatchObject({
      state: 'busy',
      usage: { model: 'm', contextPercent: 12 },
      canSend: true,
    });
    conversation.record({ type: 'exit', exit: { exitCode: 1, signal: null } });
    conversation.record({ type: 'status', state: 'idle' });
    expect(conversation.snapshot(true)).toMatchObject({
      state: 'exited',
      exit: { exitCode: 1, signal: null },
      canSend: false,
      entries: [{ kind: 'tool', status: 'failed' }],
    });
  });

  it('prompts and people: what was asked, what was sent (secrets redacted everywhere)', () => {
    const conversation = log();
    const key = 'sk-ant-api03-' + 'Ab3_x-Z9'.repeat(12);
    conversation.sent(`use ${key} please`, 'queued');
    conversation.record({ type: 'message', text: `token=${key}`, source: 'protocol' });
    conversation.record({
      type: 'prompt',
      prompt: {
        kind: 'permission',
        confidence: 'exact',
        excerpt: 'touch a.txt',
        detail: 'touch a.txt',
        choices: [],
        safeDefault: null,
        key: 'k',
      },
    });
    // A question asked after output is noted by the line that asks.
    conversation.record({
      type: 'prompt',
      prompt: {
        kind: 'yes_no',
        confidence: 'high',
        excerpt: 'compiled alpha in 3.2 s\ncompiled beta in 4.1 s\nDeploy to prod? (y/n)',
        detail: '',
        choices: [],
        safeDefault: null,
        key: 'k2',
      },
    });
    const entries = conversation.snapshot(true).entries;
    expect(entries).toMatchObject([
      { kind: 'person', outcome: 'queued', text: 'use [redacted] please' },
      { kind: 'agent' },
      { kind: 'prompt', promptKind: 'permission', text: 'touch a.txt' },
      { kind: 'prompt', promptKind: 'yes_no', text: 'Deploy to prod? (y/n)' },
    ]);
    expect(JSON.stringify(entries)).not.toContain(key);
  });

  it('is bounded: the newest entries, each cut saying how much was left out, within a total', () => {
    const conversation = log({ entries: 3, entryChars: 10, totalChars: 25 });
    for (const text of ['one', 'two', 'three', 'four'])
      conversation.record({ type: 'message', text, source: 'protocol' });
    expect(conversation.snapshot(true)).toMatchObject({
      dropped: 1,
      entries: [{ text: 'two' }, { text: 'three' }, { text: 'four' }],
    });
    // One text over the limit is cut; with its note it outweighs the rest, which goes (the newest stays).
    conversation.record({ type: 'message', text: 'x'.repeat(15), source: 'protocol' });
    expect(conversation.snapshot(true)).toMatchObject({
      dropped: 4,
      entries: [{ text: `${'x'.repeat(10)}\n… (5 more characters not shown)` }],
    });
    expect(conversation.snapshot(true).entries).toHaveLength(1);
  });
});

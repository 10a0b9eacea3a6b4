// The hook client and a session host's hook route for seed 001's progress notes (PreToolUse + transcript) and status footer
// (Claude's statusLine command), without Claude: payloads as Claude Code 2.1.197 sends them.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/core/events.js';
import { claudeHookSettings } from '../../src/drivers/hooks/claude-settings.js';
import type { HookSessionHandler } from '../../src/drivers/hooks/hook-answers.js';
import { runHookClient } from '../support/hook-client.js';
import { startHookHost, type HookHost } from '../support/hook-host.js';

let hookHost: HookHost | null = null;
let dir: string | null = null;
afterEach(async () => {
  await hookHost?.close();
  hookHost = null;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

const runClient = (event: string, payload: object, env: Record<string, string>) =>
  runHookClient(event, payload, env).done;

async function start(withProgress: boolean) {
  const events: AgentEvent[] = [];
  const notes: string[] = [];
  /** The notes there were when each permission was raised. */
  const notesAtPermission: string[][] = [];
  const handler: HookSessionHandler = {
    onEvent: (e) => events.push(e),
    onAgentSessionId: () => undefined,
    onPermissionRequest: () => {
      notesAtPermission.push([...notes]);
      return Promise.resolve(null);
    },
    ...(withProgress ? { onProgress: (text: string) => notes.push(text) } : {}),
  };
  hookHost = await startHookHost(handler);
  return { env: hookHost.env, events, notes, notesAtPermission };
}

function transcript(): string {
  dir = mkdtempSync(path.join(tmpdir(), 'ab-reports-'));
  const file = path.join(dir, 'session.jsonl');
  const lines = [
    { type: 'user', message: { role: 'user', content: 'please run TOOL:x.txt' } },
    {
      type: 'assistant',
      message: { id: 'm1', content: [{ type: 'text', text: 'I will create the file now.' }] },
    },
    {
      type: 'assistant',
      message: {
        id: 'm1',
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'touch x.txt' } }],
      },
    },
  ];
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return file;
}

const preToolUse = (file: string, tool = 'Bash') => ({
  session_id: 'c1',
  transcript_path: file,
  hook_event_name: 'PreToolUse',
  tool_name: tool,
  tool_input: { command: 'touch x.txt' },
  tool_use_id: 'toolu_1',
});

describe('Claude status line and progress notes through the hook client', () => {
  it('settings run the hook client as the status line', () => {
    const settings = claudeHookSettings(['/usr/bin/node', '/x/hook-client.mjs'], 600) as {
      statusLine: { type: string; command: string };
    };
    expect(settings.statusLine).toMatchObject({
      type: 'command',
      command: "'/usr/bin/node' '/x/hook-client.mjs' StatusLine",
    });
  });

  it("turns the status line into a status event with usage, and shows Claude's own hint", async () => {
    const hooks = await start(false);
    const result = await runClient(
      'StatusLine',
      {
        model: { id: 'claude-opus-4-8[1m]', display_name: 'Opus 4.8 (1M context)' },
        context_window: { used_percentage: 3, context_window_size: 1_000_000 },
        cost: { total_cost_usd: 0.01 },
      },
      hooks.env,
    );
    expect(result).toEqual({ code: 0, stdout: '? for shortcuts\n' });
    expect(hooks.events).toEqual([
      {
        type: 'status',
        usage: { model: 'Opus 4.8 (1M context)', contextPercent: 3, contextWindow: 1_000_000, costUsd: 0.01 },
      },
    ]);
  });

  it('shows the hint even when agent-bridge is gone', async () => {
    expect(await runClient('StatusLine', {}, {})).toEqual({ code: 0, stdout: '? for shortcuts\n' });
  });

  it('reads the text before a tool from the transcript, before the hook answers', async () => {
    const hooks = await start(true);
    const result = await runClient('PreToolUse', preToolUse(transcript()), hooks.env);
    expect(result).toEqual({ code: 0, stdout: '' });
    expect(hooks.notes).toEqual(['I will create the file now.']);
  });

  it('takes the note again at the permission request, before raising it (its PreToolUse may be lost)', async () => {
    const hooks = await start(true);
    const file = transcript();
    const { tool_use_id: _, ...request } = { ...preToolUse(file), hook_event_name: 'PermissionRequest' };
    await runClient('PermissionRequest', request, hooks.env);
    expect(hooks.notesAtPermission).toEqual([['I will create the file now.']]);
    // Another call than the transcript's: no note (and no wait).
    const other = { ...request, tool_input: { command: 'touch y.txt' } };
    await runClient('PermissionRequest', other, hooks.env);
    expect(hooks.notes).toEqual(['I will create the file now.']);
  });

  it('gives no note for questions and plans, nor to sessions without chats', async () => {
    const withChats = await start(true);
    const file = transcript();
    await runClient('PreToolUse', preToolUse(file, 'AskUserQuestion'), withChats.env);
    await runClient('PreToolUse', preToolUse(file, 'ExitPlanMode'), withChats.env);
    expect(withChats.notes).toEqual([]);
    await hookHost?.close();
    const withoutChats = await start(false);
    await runClient('PreToolUse', preToolUse(file), withoutChats.env);
    expect(withoutChats.events.map((e) => e.type)).toEqual(['activity']);
  });
});

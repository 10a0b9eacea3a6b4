import { afterEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/core/events.js';
import type { DetectedPrompt } from '../../src/core/prompt.js';
import { permissionDecision } from '../../src/drivers/hooks/claude-hook-events.js';
import { runHookClient } from '../support/hook-client.js';
import { bearer, postHook, startHookHost, type HookHost } from '../support/hook-host.js';
import { waitFor } from '../support/wait.js';

// Claude Code's hooks as they travel: the real hook client posts to a session host's socket, the host relays
// the post to its controller, which acts on it and answers back through the host.

let hookHost: HookHost | null = null;
afterEach(async () => {
  await hookHost?.close();
  hookHost = null;
});

const bash = {
  session_id: 'c1',
  hook_event_name: 'PermissionRequest',
  tool_name: 'Bash',
  tool_input: { command: 'touch x', description: 'Create x' },
  tool_use_id: 't1',
  permission_suggestions: [{ type: 'addDirectories', directories: ['/w'], destination: 'session' }],
};

async function start() {
  const events: AgentEvent[] = [];
  const ids: string[] = [];
  const prompts: DetectedPrompt[] = [];
  let answer: (value: object | null) => void = () => {};
  let aborted: AbortSignal | null = null;
  hookHost = await startHookHost({
    onEvent: (e) => events.push(e),
    onAgentSessionId: (id) => ids.push(id),
    onPermissionRequest: (prompt, _payload, signal) => {
      prompts.push(prompt);
      aborted = signal;
      return new Promise((resolve) => (answer = resolve));
    },
  });
  return {
    env: hookHost.env,
    refused: hookHost.refused,
    events,
    ids,
    prompts,
    answer: (v: object | null) => answer(v),
    aborted: () => aborted,
  };
}

describe("Claude Code's hooks through a session host", () => {
  it('refuses and reports a post without the session token, and acts on nothing', async () => {
    const hooks = await start();
    const body = JSON.stringify({ hook_event_name: 'Stop', last_assistant_message: 'forged' });
    const forged = await postHook(hookHost!.socket, 'Stop', bearer('0'.repeat(64)), body);
    const missing = await postHook(hookHost!.socket, 'Stop', { 'content-type': 'application/json' }, body);
    expect([forged.status, missing.status]).toEqual([401, 401]);
    await waitFor('both refusals told', () => hooks.refused.length === 2);
    expect(hooks.refused[0]).toEqual({ event: 'Stop', reason: 'missing or wrong session token' });
    expect(hooks.events).toEqual([]);
  });

  it('turns Stop into the clean last message and SessionStart into the resume id', async () => {
    const hooks = await start();
    const env = hooks.env;
    await runHookClient('SessionStart', { session_id: 'abc-123', hook_event_name: 'SessionStart' }, env).done;
    const stop = await runHookClient(
      'Stop',
      { hook_event_name: 'Stop', last_assistant_message: 'All done.' },
      env,
    ).done;
    expect(stop).toEqual({ code: 0, stdout: '' });
    expect(hooks.ids).toEqual(['abc-123']);
    expect(hooks.events).toContainEqual({ type: 'message', text: 'All done.', source: 'hook' });
  });

  it('holds a PermissionRequest until the answer and prints the decision for Claude', async () => {
    const hooks = await start();
    const run = runHookClient('PermissionRequest', bash, hooks.env);
    await waitFor('the prompt', () => hooks.prompts.length === 1);
    expect(hooks.prompts[0]).toMatchObject({
      kind: 'permission',
      confidence: 'exact',
      allowForSessionChoice: 2,
    });
    expect(hooks.prompts[0]!.detail).toContain('touch x');
    hooks.answer(permissionDecision({ type: 'choice', number: 3 }, bash, 'telegram:42')!);
    const { code, stdout } = await run.done;
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PermissionRequest',
        decision: { behavior: 'deny', message: 'Denied by telegram:42 through agent-bridge.' },
      },
    });
  });

  it('tells the session when Claude abandons the hook (someone answered at the terminal)', async () => {
    const hooks = await start();
    const run = runHookClient('PermissionRequest', bash, hooks.env);
    await waitFor('the prompt', () => hooks.prompts.length === 1);
    run.child.kill('SIGKILL');
    await waitFor('abort', () => hooks.aborted()?.aborted);
  });

  it('leaves questions and plans to the screen: no decision, no prompt', async () => {
    const hooks = await start();
    const { stdout } = await runHookClient(
      'PermissionRequest',
      { ...bash, tool_name: 'AskUserQuestion' },
      hooks.env,
    ).done;
    expect(stdout).toBe('');
    expect(hooks.prompts).toEqual([]);
  });

  it('never blocks Claude when the host is gone', async () => {
    const hooks = await start();
    const env = hooks.env;
    await hookHost!.close();
    hookHost = null;
    const { code, stdout } = await runHookClient('PermissionRequest', bash, env).done;
    expect({ code, stdout }).toEqual({ code: 0, stdout: '' });
  });
});

describe('permission decisions', () => {
  it('allows, allows for the session with Claude suggestions, or denies', () => {
    const suggestions = [{ type: 'addDirectories', directories: ['/w'], destination: 'session' }];
    const payload = { ...bash, permission_suggestions: suggestions };
    expect(permissionDecision({ type: 'choice', number: 1 }, payload, 'x')).toEqual({
      hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } },
    });
    expect(permissionDecision({ type: 'choice', number: 2 }, payload, 'x')).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PermissionRequest',
        decision: { behavior: 'allow', updatedPermissions: suggestions },
      },
    });
    expect(permissionDecision({ type: 'text', text: 'hm' }, payload, 'x')).toBeNull();
  });
});

// Claude Code's questions and plans under the structured driver, with the real CLI offline: AskUserQuestion and
// ExitPlanMode arrive through a PreToolUse hook callback, so they are asked in every permission mode, bypass too.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getAgent } from '../../src/agents/registry.js';
import { buildStructuredArgs } from '../../src/agents/types.js';
import { systemClock } from '../../src/core/clock.js';
import type { AgentEvent } from '../../src/core/events.js';
import { ClaudeStreamDriver } from '../../src/drivers/structured/claude/claude-stream-driver.js';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic/server.js';
import { claudeBinary, prepareClaudeHome, type ClaudeHome } from '../support/claude-env.js';
import { waitFor } from '../support/wait.js';

let cwd: string;
let api: FakeAnthropic;
let home: ClaudeHome;
let driver: ClaudeStreamDriver | null = null;

beforeEach(async () => {
  cwd = realpathSync(mkdtempSync(path.join(tmpdir(), 'ab-claude-questions-')));
  api = await startFakeAnthropic();
  home = await prepareClaudeHome({ baseUrl: api.url, cwd });
});

afterEach(async () => {
  await driver?.stop();
  driver = null;
  await api.close();
  await home.cleanup();
  rmSync(cwd, { recursive: true, force: true });
});

async function start(permissionMode?: string): Promise<AgentEvent[]> {
  const args = buildStructuredArgs(getAgent('claude'), permissionMode ? { permissionMode } : {});
  // bypassPermissions refuses to run as root unless told it is a sandbox (this test's machine may be one).
  const env = { ...home.env, IS_SANDBOX: '1' };
  driver = await ClaudeStreamDriver.start(
    { command: claudeBinary(), args, cwd, env, clock: systemClock },
    { clock: systemClock },
  );
  const events: AgentEvent[] = [];
  driver.on((event) => events.push(event));
  return events;
}

const promptOf = (events: AgentEvent[], kind: string) =>
  waitFor(
    `a ${kind} prompt`,
    () => {
      const found = events.find((e) => e.type === 'prompt' && e.prompt.kind === kind);
      return found?.type === 'prompt' ? found.prompt : undefined;
    },
    { timeoutMs: 20_000 },
  );

const modelSaw = () => JSON.stringify(api.messageRequests().map((r) => r.messages));

describe('Claude Code structured: questions and plans', () => {
  it.each([['default'], ['bypassPermissions']])(
    'AskUserQuestion in %s mode: its options as a prompt; the answer reaches Claude',
    async (mode) => {
      const events = await start(mode);
      await driver!.sendText('ASKQ');
      const prompt = await promptOf(events, 'question');
      expect(prompt.choices.map((c) => c.label)).toEqual(['Red', 'Blue', 'Type something.']);
      await driver!.answer(prompt, { type: 'choice', number: 2 });
      await waitFor(
        'the answer at Claude',
        () => modelSaw().includes('\\"Which color do you prefer?\\"=\\"Blue\\"'),
        {
          timeoutMs: 20_000,
        },
      );
    },
  );

  it('ExitPlanMode in plan mode: the plan in full; "keep planning" with words tells Claude why', async () => {
    api.setScript((request) =>
      request.lastUserText.includes('PLAN')
        ? [{ type: 'tool_use', name: 'ExitPlanMode', input: { plan: '# Plan\n1. Write it\n2. Test it' } }]
        : undefined,
    );
    const events = await start('plan');
    await driver!.sendText('PLAN please');
    const prompt = await promptOf(events, 'plan');
    expect(prompt.detail).toBe('# Plan\n1. Write it\n2. Test it');
    expect(prompt.choices.map((c) => c.label)).toEqual([
      'Yes, and auto-accept edits',
      'Yes, and manually approve edits',
      'No, keep planning',
    ]);
    await driver!.answer(prompt, { type: 'choice', number: 3, text: 'smaller steps' }, 'telegram:1');
    await waitFor(
      'the words at Claude',
      () => modelSaw().includes('Denied by telegram:1, who says: smaller steps'),
      {
        timeoutMs: 20_000,
      },
    );
  });
});

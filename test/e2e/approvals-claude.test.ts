import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic/server.js';
import { claudeBinary, prepareClaudeHome, type ClaudeHome } from '../support/claude-env.js';
import { cli, cliJson, CliUnderPty } from '../support/cli-under-pty.js';
import { waitFor } from '../support/wait.js';

interface PendingPrompt {
  id: string;
  kind: string;
  confidence: string;
  source: string;
  excerpt: string;
  detail: string;
  choices: Array<{ number: number; label: string }>;
}

let fake: FakeAnthropic;
let home: ClaudeHome;
let project: string;
let env: Record<string, string>;
let agent: CliUnderPty | null = null;

beforeEach(async () => {
  fake = await startFakeAnthropic();
  project = mkdtempSync(path.join(tmpdir(), 'ab-e2e-proj-'));
  home = await prepareClaudeHome({ baseUrl: fake.url, cwd: project });
  env = {
    ...home.env,
    AGENT_BRIDGE_HOME: path.join(home.home, '.agent-bridge'),
    AGENT_BRIDGE_CLAUDE_PATH: claudeBinary(),
  };
});

afterEach(async () => {
  await agent?.stop();
  agent = null;
  await fake.close();
  await home.cleanup();
  rmSync(project, { recursive: true, force: true });
});

async function startClaude(): Promise<CliUnderPty> {
  agent = new CliUnderPty(['run', 'claude'], { cwd: project, env });
  await agent.waitForText('? for shortcuts');
  return agent;
}

async function waitForPrompt(kind: string): Promise<PendingPrompt> {
  const found = await waitFor(
    `a pending ${kind} prompt`,
    async () => {
      const pending = await cliJson<PendingPrompt[]>(['approvals'], env);
      return pending.find((p) => p.kind === kind);
    },
    { timeoutMs: 30_000 },
  );
  return found;
}

describe('approvals with the real Claude Code', () => {
  it('a Bash permission prompt is detected exactly (hook) and answered from another terminal: the tool runs', async () => {
    const claude = await startClaude();
    await claude.type('please run TOOL:proof.txt');
    const prompt = await waitForPrompt('permission');
    expect(prompt).toMatchObject({ confidence: 'exact', source: 'hook' });
    expect(prompt.detail).toContain(`touch ${path.join(project, 'proof.txt')}`);
    expect(prompt.choices.map((c) => c.number)).toEqual([1, 2, 3]);
    const answered = await cli(['approvals', 'answer', prompt.id.slice(0, 8), '1'], env);
    expect(answered).toMatchObject({ code: 0 });
    await waitFor('proof.txt', () => existsSync(path.join(project, 'proof.txt')), { timeoutMs: 20_000 });
    await claude.waitForText('Tool finished');
    expect(await cliJson<PendingPrompt[]>(['approvals'], env)).toEqual([]);
    const again = await cli(['approvals', 'answer', prompt.id.slice(0, 8), '1'], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already/);
    const log = await cli(['logs', '-n', '50', '--json'], env);
    const events = log.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { event: string }).event);
    expect(events).toEqual(expect.arrayContaining(['PROMPT_DETECTED', 'REPLY_RECEIVED', 'REPLY_INJECTED']));
    expect(await cli(['audit', 'verify'], env)).toMatchObject({ code: 0 });
  });

  it('a deny answer stops the tool', async () => {
    const claude = await startClaude();
    await claude.type('please run TOOL:denied.txt');
    const prompt = await waitForPrompt('permission');
    expect((await cli(['approvals', 'answer', prompt.id, 'deny'], env)).code).toBe(0);
    await claude.waitForText(/Tool finished\. Result: .*(denied|Denied)/);
    expect(existsSync(path.join(project, 'denied.txt'))).toBe(false);
  });

  it('an AskUserQuestion choice reaches Claude', async () => {
    const claude = await startClaude();
    await claude.type('ASKQ');
    const prompt = await waitForPrompt('question');
    expect(prompt.choices.slice(0, 2).map((c) => c.label)).toEqual(['Red', 'Blue']);
    expect(prompt.excerpt).toContain('Which color do you prefer?');
    expect((await cli(['approvals', 'answer', prompt.id, '2'], env)).code).toBe(0);
    await claude.waitForText('Which color do you prefer? → Blue');
  });

  it('answers a question in one\'s own words (Other…: Claude\'s "Type something.")', async () => {
    const claude = await startClaude();
    await claude.type('ASKQ');
    const prompt = await waitForPrompt('question');
    expect((await cli(['approvals', 'answer', prompt.id, 'Magenta, please'], env)).code).toBe(0);
    await claude.waitForText('Which color do you prefer? → Magenta, please');
  });

  it('answering at the terminal closes the prompt for everyone else', async () => {
    const claude = await startClaude();
    await claude.type('please run TOOL:local.txt');
    const prompt = await waitForPrompt('permission');
    await claude.waitForText('Do you want to proceed?');
    claude.process.write('1');
    await waitFor('local.txt', () => existsSync(path.join(project, 'local.txt')), { timeoutMs: 20_000 });
    await waitFor(
      'prompt closed',
      async () => (await cliJson<PendingPrompt[]>(['approvals'], env)).length === 0,
    );
    const late = await cli(['approvals', 'answer', prompt.id, '3'], env);
    expect(late.code).toBe(1);
  });
});

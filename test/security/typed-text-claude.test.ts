import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic/server.js';
import { claudeBinary, prepareClaudeHome, type ClaudeHome } from '../support/claude-env.js';
import { CLI, cliJson, CliUnderPty } from '../support/cli-under-pty.js';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { endChild, waitFor } from '../support/wait.js';

// Issue 12, item 6, as reported: "no, use a different file name" typed in `approvals --watch` while Claude
// asked for a Bash permission was typed into Claude's dialog, and its Enter picked "1. Yes": the tool ran.

let fake: FakeAnthropic;
let home: ClaudeHome;
let project: string;
let env: Record<string, string>;
let claude: CliUnderPty | null = null;
let inbox: ChildProcessWithoutNullStreams | null = null;

beforeEach(async () => {
  fake = await startFakeAnthropic();
  project = mkdtempSync(path.join(tmpdir(), 'ab-sec-claude-'));
  home = await prepareClaudeHome({ baseUrl: fake.url, cwd: project });
  env = {
    ...home.env,
    AGENT_BRIDGE_HOME: path.join(home.home, '.agent-bridge'),
    AGENT_BRIDGE_CLAUDE_PATH: claudeBinary(),
    USER: 'ada',
  };
});

afterEach(async () => {
  await endChild(inbox);
  await claude?.stop();
  await fake.close();
  await home.cleanup();
  rmSync(project, { recursive: true, force: true });
});

describe('words that mean no, sent while Claude asks for a permission', () => {
  it('deny the tool with those words as the reason, and never run it', async () => {
    claude = new CliUnderPty(['run', 'claude'], { cwd: project, env });
    await claude.waitForText('? for shortcuts');
    inbox = spawn(process.execPath, [CLI, 'approvals', '--watch'], { env, cwd: project });
    let said = '';
    inbox.stdout.on('data', (d) => (said += String(d)));
    await claude.type('please run TOOL:words.txt');
    await waitFor(
      'the permission prompt',
      async () =>
        (await cliJson<Array<{ kind: string }>>(['approvals'], env)).some((p) => p.kind === 'permission'),
      { timeoutMs: 30_000 },
    );
    await claude.waitForText('Do you want to proceed?');
    inbox.stdin.write('no, use a different file name\n');
    await waitFor('said back', () => /Your message answered the waiting permission prompt/.test(said));
    await claude.waitForText(/Tool finished\. Result: .*use a different file name/);
    expect(existsSync(path.join(project, 'words.txt'))).toBe(false);
  });
});

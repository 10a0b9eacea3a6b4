import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic/server.js';
import { startFakeSlack, type FakeSlack } from '../fakes/slack/server.js';
import { claudeBinary, prepareClaudeHome, type ClaudeHome } from '../support/claude-env.js';
import { cli, CliUnderPty } from '../support/cli-under-pty.js';
import { buttonId, hasButtons, OWNER, shownText, writeSlackConfig } from '../support/slack-setup.js';
import { waitFor } from '../support/wait.js';

let anthropic: FakeAnthropic;
let slack: FakeSlack;
let home: ClaudeHome;
let project: string;
let configFile: string;
let env: Record<string, string>;
let claude: CliUnderPty | null = null;

beforeEach(async () => {
  anthropic = await startFakeAnthropic();
  slack = await startFakeSlack();
  project = mkdtempSync(path.join(tmpdir(), 'ab-slack-run-'));
  home = await prepareClaudeHome({ baseUrl: anthropic.url, cwd: project });
  const dataDir = path.join(home.home, '.agent-bridge');
  configFile = writeSlackConfig(dataDir, slack, project);
  env = { ...home.env, AGENT_BRIDGE_HOME: dataDir, AGENT_BRIDGE_CLAUDE_PATH: claudeBinary() };
});

afterEach(async () => {
  await claude?.stop();
  claude = null;
  await slack.close();
  await anthropic.close();
  await home.cleanup();
  rmSync(project, { recursive: true, force: true });
});

describe('agent-bridge run claude --approve-from slack', () => {
  it("the permission goes to the owner's DM with the app; a press there runs the tool, and the message says who", async () => {
    claude = new CliUnderPty(['run', 'claude', '--approve-from', 'slack'], { cwd: project, env });
    await claude.waitForText('? for shortcuts');
    await claude.type('please run TOOL:run-allow.txt');
    const prompt = await slack.waitForMessage(
      (m) => m.fromBot && hasButtons(m) && shownText(m).includes('run-allow.txt'),
      30_000,
    );
    expect(slack.channel(prompt.channel)).toMatchObject({ type: 'im', imUser: OWNER });
    slack.userPressesButton({ user: OWNER, messageTs: prompt.ts, actionId: buttonId(prompt, '1. Yes') });
    await waitFor('the file', () => existsSync(path.join(project, 'run-allow.txt')), { timeoutMs: 20_000 });
    await claude.waitForText('Tool finished');
    await slack.waitFor(
      () => !hasButtons(prompt) && shownText(prompt).includes(`by <@${OWNER}>`),
      10_000,
      'the update',
    );
  });

  it('refuses --approve-from slack when channels.slack is not configured, saying what to run', async () => {
    writeFileSync(
      configFile,
      readFileSync(configFile, 'utf8').replace(/^channels:[\s\S]*?^repos:/m, 'repos:'),
    );
    const result = await cli(['run', 'shell', '--approve-from', 'slack'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/slack is not configured in .*: run agent-bridge setup slack/);
  });
});

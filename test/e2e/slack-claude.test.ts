import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic/server.js';
import { startFakeSlack, type FakeSlack, type FakeSlackMessage } from '../fakes/slack/server.js';
import { claudeBinary, prepareClaudeHome, type ClaudeHome } from '../support/claude-env.js';
import { auditEntries, cliJson, CliUnderPty } from '../support/cli-under-pty.js';
import {
  buttonId,
  buttonsOf,
  CHANNEL,
  ephemeralTo,
  hasButtons,
  OWNER,
  shownText,
  STRANGER,
  writeSlackConfig,
} from '../support/slack-setup.js';
import { waitFor } from '../support/wait.js';

let anthropic: FakeAnthropic;
let slack: FakeSlack;
let home: ClaudeHome;
let project: string;
let dataDir: string;
let env: Record<string, string>;
let serve: CliUnderPty | null = null;

beforeEach(async () => {
  anthropic = await startFakeAnthropic();
  slack = await startFakeSlack({ channels: [{ id: CHANNEL, name: 'proj' }] });
  project = mkdtempSync(path.join(tmpdir(), 'ab-slack-proj-'));
  home = await prepareClaudeHome({ baseUrl: anthropic.url, cwd: project });
  dataDir = path.join(home.home, '.agent-bridge');
  writeSlackConfig(dataDir, slack, project);
  env = { ...home.env, AGENT_BRIDGE_HOME: dataDir, AGENT_BRIDGE_CLAUDE_PATH: claudeBinary() };
  serve = new CliUnderPty(['serve', '--no-web'], { cwd: project, env });
  await serve.waitForText('agent-bridge serve: proj on slack');
});

afterEach(async () => {
  await serve?.stop();
  serve = null;
  await slack.close();
  await anthropic.close();
  await home.cleanup();
  rmSync(project, { recursive: true, force: true });
});

const say = (text: string, user = OWNER, files?: Parameters<FakeSlack['userSends']>[0]['files']) =>
  slack.userSends({ user, channel: CHANNEL, text, ...(files ? { files } : {}) });

const botSays = (pattern: RegExp, timeoutMs = 40_000) =>
  slack.waitForMessage(
    (m) => m.fromBot && !m.ephemeralFor && m.channel === CHANNEL && pattern.test(m.text),
    timeoutMs,
  );

/** Asks Claude to `touch` a file; resolves with the permission prompt's message in the channel. */
async function permissionFor(file: string): Promise<FakeSlackMessage> {
  say(`please run TOOL:${file}`);
  return slack.waitForMessage(
    (m) => m.fromBot && m.channel === CHANNEL && hasButtons(m) && shownText(m).includes(file),
    40_000,
  );
}

const press = (message: FakeSlackMessage, label: string, user = OWNER) =>
  slack.userPressesButton({ user, messageTs: message.ts, actionId: buttonId(message, label) });

const fileIn = (name: string) => path.join(project, name);
const toolResults = () => anthropic.messageRequests().filter((r) => r.toolResult !== undefined);

/** The agent's words alone, then at most the status footer (📊 model, context): nothing from the screen. */
function expectClean(message: FakeSlackMessage, words: string): void {
  const [first, ...rest] = message.text.split('\n');
  expect(first).toBe(words);
  for (const line of rest) expect(line).toMatch(/^📊 /);
  expect(message.text).not.toContain(String.fromCharCode(27));
  expect(first).not.toMatch(/[│╭╰❯]/);
}

describe('Slack with the real Claude Code under agent-bridge serve', () => {
  it('a message in the mapped channel starts the session and gets a clean answer', async () => {
    say('hello there');
    const answer = await botSays(/Hello from the fake model! You said: hello there/);
    expectClean(answer, 'Hello from the fake model! You said: hello there');
  });

  it("a Bash permission becomes buttons in Claude's words; one press runs the tool once and the message says who", async () => {
    const prompt = await permissionFor('sl-allow.txt');
    expect(shownText(prompt)).toContain(`touch ${fileIn('sl-allow.txt')}`);
    expect(shownText(prompt)).toMatch(/🔔 \*Permission\* · claude · proj · /);
    expect(buttonsOf(prompt).map((b) => b.label)).toEqual([
      '1. Yes',
      expect.stringMatching(/^2\. Yes, and allow access to /),
      '3. No',
      'No, and say why…',
    ]);
    press(prompt, '1. Yes');
    await waitFor('the file', () => existsSync(fileIn('sl-allow.txt')), { timeoutMs: 20_000 });
    await botSays(/Tool finished\. Result: .*is_error=false/);
    await slack.waitFor(
      () => !hasButtons(prompt) && shownText(prompt).includes(`✅ *1. Yes* by <@${OWNER}>`),
      10_000,
      'the update',
    );
    expect(toolResults()).toHaveLength(1);
    expect(slack.calls.filter((c) => c.method === 'chat.update' && c.ok).length).toBeGreaterThanOrEqual(1);
  });

  it("a stranger's press changes nothing; they alone are told", async () => {
    const prompt = await permissionFor('sl-stranger.txt');
    press(prompt, '1. Yes', STRANGER);
    await waitFor('the ephemeral refusal', () =>
      ephemeralTo(slack, STRANGER).some((m) => /not allowed/.test(m.text)),
    );
    expect(slack.messages.filter((m) => !m.ephemeralFor && /not allowed/.test(m.text))).toHaveLength(0);
    expect(existsSync(fileIn('sl-stranger.txt'))).toBe(false);
    expect(hasButtons(prompt)).toBe(true);
    expect(await cliJson<unknown[]>(['approvals'], env)).toHaveLength(1);
    const log = await auditEntries(env);
    expect(log.some((e) => e.event === 'UNAUTHORIZED' && e.user === STRANGER && e.channel === 'slack')).toBe(
      true,
    );
  });

  it('"No, and say why…" opens a form; its words deny the tool and reach Claude', async () => {
    const prompt = await permissionFor('sl-other.txt');
    press(prompt, 'No, and say why…');
    await slack.waitFor(() => slack.views.some((v) => v.type === 'modal'), 10_000, 'the form');
    const form = slack.views.find((v) => v.type === 'modal')!;
    slack.userSubmitsForm({ user: OWNER, viewId: form.id, value: 'use the staging copy instead' });
    await botSays(/Tool finished\. Result: .*who says: use the staging copy instead/);
    expect(existsSync(fileIn('sl-other.txt'))).toBe(false);
    expect(ephemeralTo(slack, OWNER).map((m) => m.text)).toContain(
      'Answered: 3. No: "use the staging copy instead"',
    );
    await slack.waitFor(
      () =>
        !hasButtons(prompt) &&
        /❌ \*3\. No: .*use the staging copy instead.*\* by <@U0OWNER001>/.test(shownText(prompt)),
      10_000,
      'the update',
    );
  });

  it('a file posted with words is downloaded with the bot token and reaches the agent as a saved path', async () => {
    const bytes = Buffer.from('line one\nline two\n\u00e9t\u00e9 \u2713\n');
    say('please read the attached notes', OWNER, [{ name: 'notes.txt', data: bytes }]);
    await botSays(/Hello from the fake model! You said: please read the attached notes/);
    const typed = anthropic.messageRequests().at(-1)?.lastUserText ?? '';
    const saved = /(\S*uploads\/proj\/notes\.txt)/.exec(typed)?.[1];
    expect(saved, typed).toBeDefined();
    expect(readFileSync(saved!).equals(bytes)).toBe(true);
    expect(slack.downloads).toEqual([expect.objectContaining({ authorized: true, status: 200 })]);
  });

  it('the agent sends a file from its outputs folder with files.uploadV2: the bytes arrive, the marker does not', async () => {
    const outputs = path.join(dataDir, 'outputs', 'proj');
    mkdirSync(outputs, { recursive: true });
    writeFileSync(path.join(outputs, 'report.txt'), '# Report\nall green\n');
    anthropic.setScript((req) =>
      req.lastUserText.includes('send the report') ? 'Here it is [ATTACH: report.txt]' : undefined,
    );
    say('send the report');
    const shared = await slack.waitForMessage((m) => m.files.some((f) => f.name === 'report.txt'), 40_000);
    expect(shared.files[0]!.data?.toString()).toBe('# Report\nall green\n');
    expectClean(await botSays(/^Here it is/), 'Here it is');
    expect(slack.messages.some((m) => m.text.includes('[ATTACH'))).toBe(false);
  });

  it('/agent-bridge status answers privately; the App Home shows the project and starts it', async () => {
    slack.userRunsCommand({ user: OWNER, channel: CHANNEL, text: 'status' });
    await waitFor('the status', () =>
      ephemeralTo(slack, OWNER).some((m) => /^proj · Claude Code · stopped/.test(m.text)),
    );
    slack.userOpensHome(OWNER);
    await slack.waitFor(
      () => buttonsOf(slack.home(OWNER)?.['blocks'] as never).length > 0,
      10_000,
      'the App Home',
    );
    expect(JSON.stringify(slack.home(OWNER))).toContain('*proj* · Claude Code · stopped');
    slack.userPressesHomeButton({
      user: OWNER,
      actionId: buttonId(slack.home(OWNER)?.['blocks'] as never, '▶ Start'),
    });
    await slack.waitFor(
      () => buttonsOf(slack.home(OWNER)?.['blocks'] as never).some((b) => b.label === '🛑 Stop'),
      40_000,
      'the App Home showing Stop',
    );
    slack.userOpensHome(STRANGER);
    slack.userRunsCommand({ user: OWNER, channel: CHANNEL, text: 'sessions' });
    await waitFor('a round trip', () =>
      ephemeralTo(slack, OWNER).some((m) => /· claude · proj/.test(m.text)),
    );
    expect(slack.home(STRANGER)).toBeUndefined();
  });
});

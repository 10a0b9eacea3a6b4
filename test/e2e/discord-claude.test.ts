import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic/server.js';
import { startFakeDiscord, type FakeDiscord, type FakeDiscordMessage } from '../fakes/discord/server.js';
import { claudeBinary, prepareClaudeHome, type ClaudeHome } from '../support/claude-env.js';
import { auditEntries, cliJson, CliUnderPty } from '../support/cli-under-pty.js';
import {
  buttonId,
  buttonsOf,
  CHANNEL,
  ephemeralReplies,
  hasButtons,
  OWNER,
  STRANGER,
  writeDiscordConfig,
} from '../support/discord-setup.js';
import { waitFor } from '../support/wait.js';

let anthropic: FakeAnthropic;
let discord: FakeDiscord;
let home: ClaudeHome;
let project: string;
let dataDir: string;
let env: Record<string, string>;
let serve: CliUnderPty | null = null;

beforeEach(async () => {
  anthropic = await startFakeAnthropic();
  discord = await startFakeDiscord({ channels: [{ id: CHANNEL, name: 'proj' }] });
  project = mkdtempSync(path.join(tmpdir(), 'ab-dc-proj-'));
  home = await prepareClaudeHome({ baseUrl: anthropic.url, cwd: project });
  dataDir = path.join(home.home, '.agent-bridge');
  writeDiscordConfig(dataDir, discord, project);
  env = { ...home.env, AGENT_BRIDGE_HOME: dataDir, AGENT_BRIDGE_CLAUDE_PATH: claudeBinary() };
  serve = new CliUnderPty(['serve', '--no-web'], { cwd: project, env });
  await serve.waitForText('agent-bridge serve: proj on discord');
});

afterEach(async () => {
  await serve?.stop();
  serve = null;
  await discord.close();
  await anthropic.close();
  await home.cleanup();
  rmSync(project, { recursive: true, force: true });
});

const say = (content: string, userId = OWNER, extra: Partial<Parameters<FakeDiscord['userSends']>[0]> = {}) =>
  discord.userSends({
    userId,
    username: userId === OWNER ? 'owner' : 'stranger',
    channelId: CHANNEL,
    content,
    ...extra,
  });

const botSays = (pattern: RegExp, timeoutMs = 40_000) =>
  discord.waitForMessage((m) => m.fromBot && m.channelId === CHANNEL && pattern.test(m.content), timeoutMs);

/** Asks Claude to `touch` a file; resolves with the permission prompt's message in the channel. */
async function permissionFor(file: string): Promise<FakeDiscordMessage> {
  say(`please run TOOL:${file}`);
  return discord.waitForMessage(
    (m) => m.fromBot && m.channelId === CHANNEL && hasButtons(m) && m.content.includes(file),
    40_000,
  );
}

const press = (message: FakeDiscordMessage, label: string, userId = OWNER) =>
  discord.userPressesButton({
    userId,
    username: 'someone',
    messageId: message.id,
    customId: buttonId(message, label),
  });

const fileIn = (name: string) => path.join(project, name);

/** The agent's words alone, then at most the status footer (📊 model, context): nothing from the screen. */
function expectClean(message: FakeDiscordMessage, words: string): void {
  const [first, ...rest] = message.content.split('\n');
  expect(first).toBe(words);
  for (const line of rest) expect(line).toMatch(/^📊 /);
  expect(message.content).not.toContain(String.fromCharCode(27));
  expect(first).not.toMatch(/[│╭╰❯]/); // no TUI frame (the footer itself separates its parts with │)
}

describe('Discord with the real Claude Code under agent-bridge serve', () => {
  it('a message in the mapped channel starts the session and gets a clean answer', async () => {
    say('hello there');
    const answer = await botSays(/Hello from the fake model! You said: hello there/);
    expectClean(answer, 'Hello from the fake model! You said: hello there');
  });

  it("a Bash permission shows Claude's own options, the grant in Claude's words; Yes runs the tool", async () => {
    const prompt = await permissionFor('dc-allow.txt');
    expect(prompt.content).toContain(`touch ${fileIn('dc-allow.txt')}`);
    expect(prompt.content).toMatch(/Permission\*\* · claude · proj/);
    const labels = buttonsOf(prompt).map((b) => b.label);
    expect(labels).toEqual([
      '1. Yes',
      expect.stringMatching(/^2\. Yes, and allow access to /),
      '3. No',
      'No, and say why…',
    ]);
    // The grant is spelled out in full: where, and for how long (the button itself holds 80 characters).
    expect(prompt.content).toMatch(/\*\*2\.\*\* Yes, and allow access to \S+ for this session/);
    press(prompt, '1. Yes');
    await waitFor('the file', () => existsSync(fileIn('dc-allow.txt')), { timeoutMs: 20_000 });
    await discord.waitFor(
      () => !hasButtons(prompt) && prompt.content.includes(`by <@${OWNER}>`),
      10_000,
      'the edit',
    );
    expect(prompt.content).toContain('✅');
    await botSays(/Tool finished\. Result: .*is_error=false/);
  });

  it('ignores other bots and channels it was not given', async () => {
    const other = discord.addChannel({ name: 'random' });
    discord.userSends({ userId: OWNER, username: 'owner', channelId: other, content: 'not for you' });
    discord.userSends({
      userId: '1400000000000000077',
      username: 'otherbot',
      bot: true,
      channelId: CHANNEL,
      content: 'beep from a bot',
    });
    say('hello after');
    expectClean(await botSays(/You said: hello after/), 'Hello from the fake model! You said: hello after');
    const typed = anthropic
      .messageRequests()
      .map((r) => r.lastUserText)
      .join('\n');
    expect(typed).not.toMatch(/not for you|beep from a bot/);
    expect(discord.messages.filter((m) => m.fromBot && m.channelId === other)).toHaveLength(0);
  });

  it('Deny stops the tool', async () => {
    const prompt = await permissionFor('dc-deny.txt');
    press(prompt, '3. No');
    await botSays(/Tool finished\. Result: .*Denied by discord:/);
    expect(existsSync(fileIn('dc-deny.txt'))).toBe(false);
    await discord.waitFor(
      () => !hasButtons(prompt) && prompt.content.includes('❌ **3. No**'),
      10_000,
      'the edit',
    );
  });

  it("a stranger's click changes nothing; they alone are told they are not allowed", async () => {
    const prompt = await permissionFor('dc-stranger.txt');
    const interaction = press(prompt, '1. Yes', STRANGER);
    await discord.waitFor(
      () =>
        ephemeralReplies(discord).some(
          (m) => m.interactionId === interaction && /not allowed/.test(m.content),
        ),
      10_000,
      'the ephemeral refusal',
    );
    expect(
      discord.messages.filter((m) => m.fromBot && !m.flags && /not allowed/.test(m.content)),
    ).toHaveLength(0);
    expect(existsSync(fileIn('dc-stranger.txt'))).toBe(false);
    expect(hasButtons(prompt)).toBe(true);
    expect(await cliJson<unknown[]>(['approvals'], env)).toHaveLength(1);
    const log = await auditEntries(env);
    expect(
      log.some((e) => e.event === 'UNAUTHORIZED' && e.user === STRANGER && e.channel === 'discord'),
    ).toBe(true);
  });

  it('Other… shows a form; its words deny with that reason', async () => {
    const prompt = await permissionFor('dc-other.txt');
    press(prompt, 'No, and say why…');
    await discord.waitFor(() => discord.interactionResponses.some((r) => r.type === 9), 10_000, 'the modal');
    const modal = discord.interactionResponses.find((r) => r.type === 9)!;
    expect(modal.data?.['title']).toBe('Deny, and say why');
    discord.userSubmitsModal({
      userId: OWNER,
      channelId: CHANNEL,
      messageId: prompt.id,
      customId: String(modal.data?.['custom_id']),
      fields: { text: 'use the staging copy instead' },
    });
    await botSays(/Tool finished\. Result: .*who says: use the staging copy instead/);
    expect(existsSync(fileIn('dc-other.txt'))).toBe(false);
    // Only the person who answered is told "Answered: …"; the channel sees the edited prompt.
    expect(ephemeralReplies(discord).map((m) => m.content)).toContain(
      'Answered: 3. No: "use the staging copy instead"',
    );
    expect(discord.messages.some((m) => !((m.flags ?? 0) & 64) && m.content.startsWith('Answered:'))).toBe(
      false,
    );
    await discord.waitFor(() => !hasButtons(prompt), 10_000, 'the buttons removed');
  });

  it('an attachment sent with words reaches the agent as a saved file path', async () => {
    // The first message starts Claude, and the attachment's path makes it two lines (a paste): its Enter must
    // wait until Claude has taken the paste in.
    const bytes = Buffer.from('line one\nline two\n\u00e9t\u00e9 \u2713\n');
    say('please read the attached notes', OWNER, {
      attachments: [{ filename: 'notes.txt', data: bytes, contentType: 'text/plain' }],
    });
    await botSays(/Hello from the fake model! You said: please read the attached notes/);
    const typed = anthropic.messageRequests().at(-1)?.lastUserText ?? '';
    const saved = /(\S*uploads\/proj\/notes\.txt)/.exec(typed)?.[1];
    expect(saved, typed).toBeDefined();
    expect(path.isAbsolute(saved!)).toBe(true);
    expect(readFileSync(saved!).equals(bytes)).toBe(true);
  });

  it('the agent sends a file from its outputs folder: the bytes arrive, the marker does not', async () => {
    const outputs = path.join(dataDir, 'outputs', 'proj');
    mkdirSync(outputs, { recursive: true });
    const report = Buffer.from('# Report\nall green\n');
    writeFileSync(path.join(outputs, 'report.txt'), report);
    anthropic.setScript((req) =>
      req.lastUserText.includes('send the report') ? 'Here it is [ATTACH: report.txt]' : undefined,
    );
    say('send the report');
    const withFile = await discord.waitForMessage(
      (m) => m.fromBot && m.attachments.some((a) => a.filename === 'report.txt'),
      40_000,
    );
    expect(withFile.attachments[0]!.data?.equals(report)).toBe(true);
    expectClean(await botSays(/Here it is/), 'Here it is');
    expect(discord.messages.some((m) => m.content.includes('[ATTACH'))).toBe(false);
  });

  it('a marker leading out of the outputs folder is refused, said and audited', async () => {
    mkdirSync(path.join(dataDir, 'outputs', 'proj'), { recursive: true });
    writeFileSync(path.join(dataDir, 'outputs', 'secret.txt'), 'top secret');
    anthropic.setScript((req) =>
      req.lastUserText.includes('leak') ? 'Sure [ATTACH: ../secret.txt]' : undefined,
    );
    say('leak it');
    const notice = await botSays(/⚠️ Not sent: \.\.\/secret\.txt/);
    expect(notice.content).toContain('outside the outputs folder');
    expect(discord.messages.some((m) => m.fromBot && m.attachments.length > 0)).toBe(false);
    const log = await auditEntries(env);
    expect(log.some((e) => e.event === 'ATTACHMENT_REFUSED' && e.path === '../secret.txt')).toBe(true);
  });
});

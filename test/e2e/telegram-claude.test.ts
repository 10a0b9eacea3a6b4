import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic/server.js';
import { startFakeTelegram, type FakeTelegram } from '../fakes/telegram/server.js';
import { claudeBinary, prepareClaudeHome, type ClaudeHome } from '../support/claude-env.js';
import { cli, cliJson, CliUnderPty } from '../support/cli-under-pty.js';
import { buttonData, hasButtons, OWNER, STRANGER, writeTelegramConfig } from '../support/telegram-setup.js';
import { waitFor } from '../support/wait.js';

let anthropic: FakeAnthropic;
let telegram: FakeTelegram;
let home: ClaudeHome;
let project: string;
let env: Record<string, string>;
const processes: CliUnderPty[] = [];

beforeEach(async () => {
  anthropic = await startFakeAnthropic();
  telegram = await startFakeTelegram();
  project = mkdtempSync(path.join(tmpdir(), 'ab-tg-proj-'));
  home = await prepareClaudeHome({ baseUrl: anthropic.url, cwd: project });
  const dataDir = path.join(home.home, '.agent-bridge');
  writeTelegramConfig(dataDir, telegram);
  env = { ...home.env, AGENT_BRIDGE_HOME: dataDir, AGENT_BRIDGE_CLAUDE_PATH: claudeBinary() };
});

afterEach(async () => {
  await Promise.all(processes.splice(0).map((p) => p.stop()));
  await telegram.close();
  await anthropic.close();
  await home.cleanup();
  rmSync(project, { recursive: true, force: true });
});

function start(args: string[]): CliUnderPty {
  const proc = new CliUnderPty(args, { cwd: project, env });
  processes.push(proc);
  return proc;
}

async function claudeWithTelegram(): Promise<CliUnderPty> {
  const claude = start(['run', 'claude', '--approve-from', 'telegram']);
  await claude.waitForText('? for shortcuts');
  return claude;
}

const promptMessage = (file: string) =>
  telegram.waitForMessage((m) => hasButtons(m) && (m.text ?? '').includes(`${file}`), 30_000);

describe('Telegram approvals with the real Claude Code', () => {
  it('Bash permission → message with buttons → Allow → the tool runs; the message shows who chose what', async () => {
    const claude = await claudeWithTelegram();
    await claude.type('please run TOOL:tg-allow.txt');
    const message = await promptMessage('tg-allow.txt');
    expect(message.chatId).toBe(OWNER);
    expect(message.text ?? '').toContain(`touch ${path.join(project, 'tg-allow.txt')}`);
    expect(message.text).toMatch(/Permission · claude/);
    telegram.userPressesButton({
      userId: OWNER,
      messageId: message.messageId,
      data: buttonData(message, '1.'),
    });
    await waitFor('the file', () => existsSync(path.join(project, 'tg-allow.txt')), { timeoutMs: 20_000 });
    await claude.waitForText('Tool finished');
    await waitFor(
      'the message edited',
      () => (message.text ?? '').includes(`by telegram:${OWNER}`) && !hasButtons(message),
      { timeoutMs: 10_000 },
    );
    expect(message.text ?? '').toContain('✅');
    expect(telegram.callbackAnswers.map((a) => a.text)).toContain('Answered: 1. Yes');
  });

  it('Deny stops the tool', async () => {
    const claude = await claudeWithTelegram();
    await claude.type('please run TOOL:tg-deny.txt');
    const message = await promptMessage('tg-deny.txt');
    telegram.userPressesButton({
      userId: OWNER,
      messageId: message.messageId,
      data: buttonData(message, '3.'),
    });
    await claude.waitForText(/Tool finished\. Result: .*(denied|Denied)/);
    expect(existsSync(path.join(project, 'tg-deny.txt'))).toBe(false);
  });

  it("in a group: a stranger's tap changes nothing; a duplicate tap is refused; one injection", async () => {
    const group = -1001234567890;
    telegram.addChat({ id: group, title: 'team' });
    writeTelegramConfig(env.AGENT_BRIDGE_HOME!, telegram, `    chat_ids: [${group}]\n`);
    const claude = await claudeWithTelegram();
    await claude.type('please run TOOL:tg-once.txt');
    const message = await promptMessage('tg-once.txt');
    const allow = buttonData(message, '1.');
    expect(message.chatId).toBe(group);
    telegram.userPressesButton({
      userId: STRANGER,
      chatId: group,
      messageId: message.messageId,
      data: allow,
    });
    await waitFor('the stranger told', () =>
      telegram.callbackAnswers.some((a) => /not allowed/.test(a.text ?? '')),
    );
    expect(existsSync(path.join(project, 'tg-once.txt'))).toBe(false);
    expect(await cliJson<unknown[]>(['approvals'], env)).toHaveLength(1);
    telegram.userPressesButton({ userId: OWNER, chatId: group, messageId: message.messageId, data: allow });
    await waitFor('the file', () => existsSync(path.join(project, 'tg-once.txt')), { timeoutMs: 20_000 });
    telegram.userPressesButton({
      userId: OWNER,
      chatId: group,
      messageId: message.messageId,
      data: allow,
      force: true,
    });
    await waitFor('the duplicate refused', () =>
      telegram.callbackAnswers.some((a) => /Not applied: already/.test(a.text ?? '')),
    );
    await claude.waitForText('Tool finished');
    const log = (await cli(['logs', '-n', '200', '--json'], env)).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; user?: string });
    expect(log.filter((e) => e.event === 'REPLY_INJECTED')).toHaveLength(1);
    expect(log.some((e) => e.event === 'UNAUTHORIZED' && e.user === String(STRANGER))).toBe(true);
  });

  it('answering in the terminal first: the phone is told', async () => {
    const claude = await claudeWithTelegram();
    await claude.type('please run TOOL:tg-local.txt');
    const message = await promptMessage('tg-local.txt');
    await claude.waitForText('Do you want to proceed?');
    claude.process.write('1');
    await waitFor(
      'the message says so',
      () => (message.text ?? '').includes('Answered at the terminal') && !hasButtons(message),
      { timeoutMs: 15_000 },
    );
  });

  it('a restart of the Telegram host between prompt and tap still ends in exactly one answer', async () => {
    const serve = start(['serve', '--no-web']);
    await waitFor('serve hosting telegram', () => telegram.isPolling(), { timeoutMs: 15_000 });
    const claude = await claudeWithTelegram();
    await claude.type('please run TOOL:tg-restart.txt');
    const message = await promptMessage('tg-restart.txt');
    await serve.stop();
    const again = start(['serve', '--no-web']);
    await waitFor('serve back', () => telegram.isPolling(), { timeoutMs: 30_000 });
    telegram.userPressesButton({
      userId: OWNER,
      messageId: message.messageId,
      data: buttonData(message, '1.'),
    });
    await waitFor('the file', () => existsSync(path.join(project, 'tg-restart.txt')), { timeoutMs: 20_000 });
    await waitFor('the message edited', () => !hasButtons(message), { timeoutMs: 10_000 });
    const log = (await cli(['logs', '-n', '200', '--json'], env)).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string });
    expect(log.filter((e) => e.event === 'REPLY_INJECTED')).toHaveLength(1);
    expect(telegram.messages(OWNER).filter((m) => (m.text ?? '').includes('tg-restart.txt'))).toHaveLength(1);
    await again.stop();
  });
});

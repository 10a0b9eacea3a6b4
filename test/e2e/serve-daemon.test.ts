import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic/server.js';
import { startFakeTelegram, type FakeTelegram } from '../fakes/telegram/server.js';
import { claudeBinary, prepareClaudeHome, type ClaudeHome } from '../support/claude-env.js';
import { CliUnderPty } from '../support/cli-under-pty.js';
import { OWNER } from '../support/telegram-setup.js';

const AGENT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fakes/agent/chatty-agent.sh');
const GROUP = -100777;

let anthropic: FakeAnthropic;
let telegram: FakeTelegram;
let home: ClaudeHome;
let project: string;
let env: Record<string, string>;
let configFile: string;
let serve: CliUnderPty | null = null;

function writeConfig(withSecondRepo: boolean): void {
  const second = withSecondRepo
    ? `  - name: second\n    dir: ${project}\n    agent: custom\n    args: [bash, ${AGENT}, second]\n    channels:\n      telegram: [${GROUP}]\n`
    : '';
  writeFileSync(
    configFile,
    `# test daemon\nchannels:\n  telegram:\n    token: "${telegram.token}"\n    allowed_users: [${OWNER}]\n    api_root: ${telegram.apiRoot}\n` +
      `repos:\n  - name: proj\n    dir: ${project}\n    agent: claude\n    channels:\n      telegram: [${OWNER}]\n${second}`,
  );
}

beforeEach(async () => {
  anthropic = await startFakeAnthropic();
  telegram = await startFakeTelegram();
  telegram.addChat({ id: GROUP, title: 'second team' });
  project = mkdtempSync(path.join(tmpdir(), 'ab-serve-proj-'));
  home = await prepareClaudeHome({ baseUrl: anthropic.url, cwd: project });
  const dataDir = path.join(home.home, '.agent-bridge');
  configFile = path.join(project, 'agent-bridge.yaml');
  env = { ...home.env, AGENT_BRIDGE_HOME: dataDir, AGENT_BRIDGE_CLAUDE_PATH: claudeBinary() };
});

afterEach(async () => {
  await serve?.stop();
  serve = null;
  await telegram.close();
  await anthropic.close();
  await home.cleanup();
  rmSync(project, { recursive: true, force: true });
});

describe('agent-bridge serve with the real Claude Code', () => {
  it('answers a chat message in the chat as clean text, reloads on SIGHUP, stops on SIGTERM', async () => {
    writeConfig(false);
    serve = new CliUnderPty(['serve', '--config', configFile, '--no-web'], { cwd: project, env });
    await serve.waitForText('agent-bridge serve: proj on telegram');
    // It says which repository runs which agent where, reached from which chats, and what to type here.
    await serve.waitForText('/help lists the commands');
    const banner = await serve.screen();
    expect(banner).toContain(
      `agent-bridge serve: proj on telegram, terminal (${configFile}); Ctrl-C to stop`,
    );
    expect(banner).toContain(`  proj: claude in ${project}, from telegram ${OWNER}`);
    expect(banner).toContain('agent-bridge serve: type a message for proj here; /help lists the commands');
    telegram.userSendsText({ userId: OWNER, text: 'hello there' });
    const answer = await telegram.waitForMessage(
      (m) => /Hello from the fake model! You said: hello there/.test(m.text ?? ''),
      40_000,
    );
    expect(answer.text).not.toContain(String.fromCharCode(27));
    // The agent's words, then the status footer (model, context use) Claude's status line reported.
    const [words, footer] = (answer.text ?? '').split('\n📊 ');
    expect(words?.trim()).toBe('Hello from the fake model! You said: hello there');
    expect(footer).toMatch(/\S/);

    writeConfig(true);
    process.kill(serve.process.pid, 'SIGHUP');
    await serve.waitForText('reloaded');
    telegram.userSendsText({ userId: OWNER, chatId: GROUP, text: 'ping second' });
    await telegram.waitForMessage(
      (m) => m.chatId === GROUP && /second got: ping second/.test(m.text ?? ''),
      20_000,
    );

    process.kill(serve.process.pid, 'SIGTERM');
    await serve.waitForExit();
    expect(serve.exit?.exitCode, await serve.screen()).toBe(0);
    // What serve said is kept in its log file too, one JSON line each, private to the user.
    const log = path.join(env.AGENT_BRIDGE_HOME!, 'logs', 'serve.log');
    expect(statSync(log).mode & 0o777).toBe(0o600);
    const said = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(said.some((msg) => msg.startsWith('reloaded '))).toBe(true);
  });
});

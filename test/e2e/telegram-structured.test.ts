// Each real agent CLI under its structured driver (Claude Code: stream-json; Gemini CLI and Copilot CLI: ACP;
// Codex: app-server),
// offline against its fake model API, driven from the fake Telegram through `agent-bridge serve`.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeTelegram, type FakeTelegram, type FakeMessage } from '../fakes/telegram/server.js';
import { cli } from '../support/cli-under-pty.js';
import { ServeProcess } from '../support/serve-process.js';
import { REAL_AGENTS, type RealAgent } from '../support/structured-agents.js';
import { buttonData, hasButtons, OWNER } from '../support/telegram-setup.js';
import { waitFor } from '../support/wait.js';

let telegram: FakeTelegram;
let project: string;
let agent: RealAgent | null = null;
let serve: ServeProcess | null = null;

beforeEach(async () => {
  telegram = await startFakeTelegram();
  project = mkdtempSync(path.join(tmpdir(), 'ab-structured-'));
});

afterEach(async () => {
  await serve?.stop();
  serve = null;
  await agent?.close();
  agent = null;
  await telegram.close();
  rmSync(project, { recursive: true, force: true });
});

/** `serve` with one repository: this agent, under its structured driver, talking to the owner's chat. */
async function serveStructured(name: RealAgent['agent']): Promise<{ env: Record<string, string> }> {
  agent = await REAL_AGENTS[name](project);
  const dataDir = path.join(agent.env.HOME!, '.agent-bridge');
  const env = { ...agent.env, AGENT_BRIDGE_HOME: dataDir };
  const config = [
    'channels:',
    '  telegram:',
    `    token: "${telegram.token}"`,
    `    allowed_users: [${OWNER}]`,
    `    api_root: ${telegram.apiRoot}`,
    'repos:',
    `  - name: proj`,
    `    dir: ${project}`,
    `    agent: ${name}`,
    '    driver: structured',
    `    channels: { telegram: [${OWNER}] }`,
    '',
  ].join('\n');
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(path.join(dataDir, 'agent-bridge.yaml'), config, { mode: 0o600 });
  serve = new ServeProcess(['--no-web'], { cwd: project, env });
  await waitFor('serve polling Telegram', () => telegram.isPolling(), { timeoutMs: 20_000 });
  return { env };
}

const say = (text: string) => telegram.userSendsText({ userId: OWNER, text });
const botSaid = (predicate: (m: FakeMessage) => boolean, what: string) =>
  waitFor(what, () => telegram.messages(OWNER).find(predicate), { timeoutMs: 60_000 });
const promptFor = (file: string) =>
  botSaid((m) => hasButtons(m) && (m.text ?? '').includes(file), `a prompt with buttons for ${file}`);

describe.each(['claude', 'gemini', 'copilot', 'codex'] as const)(
  'Telegram ↔ %s over its own protocol',
  (name) => {
    it('a message reaches it and its answer comes back as clean text; a permission becomes buttons, a click runs the tool once; a No with words reaches it', async () => {
      const { env } = await serveStructured(name);

      say('hello structured');
      const answer = await botSaid(
        (m) => (m.text ?? '').startsWith('Hello from the fake model! You said: hello structured'),
        'the answer',
      );
      // eslint-disable-next-line no-control-regex -- no escape codes or screen frames in the text
      expect(answer.text).not.toMatch(/\x1b|[│┌└╭╰]/);
      say('/status');
      await botSaid(
        (m) => /proj · .* \(structured driver\) · running .*\n📊 \S/.test(m.text ?? ''),
        '/status with the driver and the agent’s model',
      );

      say('please run TOOL:tg-once.txt');
      const prompt = await promptFor('tg-once.txt');
      expect(prompt.text).toMatch(new RegExp(`Permission · ${name}`));
      const allow = buttonData(prompt, '1.');
      telegram.userPressesButton({ userId: OWNER, messageId: prompt.messageId, data: allow });
      await waitFor('the file', () => existsSync(path.join(project, 'tg-once.txt')), { timeoutMs: 30_000 });
      await botSaid((m) => (m.text ?? '').startsWith('Tool finished'), 'the answer after the tool');
      telegram.userPressesButton({ userId: OWNER, messageId: prompt.messageId, data: allow, force: true });
      await waitFor('the second tap refused', () =>
        telegram.callbackAnswers.some((a) => /Not applied|no longer/.test(a.text ?? '')),
      );
      expect(agent!.toolResults()).toBe(1);

      say('please run TOOL:tg-deny.txt');
      const second = await promptFor('tg-deny.txt');
      telegram.userSendsText({
        userId: OWNER,
        text: 'use tg-other.txt instead',
        replyToMessageId: second.messageId,
      });
      await waitFor(
        'the words reach the agent',
        () => agent!.modelSaw().includes('use tg-other.txt instead'),
        {
          timeoutMs: 30_000,
        },
      );
      expect(existsSync(path.join(project, 'tg-deny.txt'))).toBe(false);
      const log = (await cli(['logs', '-n', '300', '--json'], env)).stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { event: string });
      expect(log.filter((e) => e.event === 'REPLY_INJECTED')).toHaveLength(2);
    });
  },
);

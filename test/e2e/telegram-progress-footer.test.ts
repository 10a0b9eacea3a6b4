// Seed 001 "Progress Notifications" and "Context / Model / Rate Limit Footer" with the real Claude Code,
// offline: the progress note comes from Claude's transcript (PreToolUse), the footer from its statusLine.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/store.js';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic/server.js';
import { startFakeTelegram, type FakeTelegram } from '../fakes/telegram/server.js';
import { claudeBinary, prepareClaudeHome, type ClaudeHome } from '../support/claude-env.js';
import { CliUnderPty } from '../support/cli-under-pty.js';
import { buttonData, hasButtons, OWNER, writeTelegramConfig } from '../support/telegram-setup.js';
import { waitFor } from '../support/wait.js';

const NOTE = '🔄 I will create the file now.';

let anthropic: FakeAnthropic;
let telegram: FakeTelegram;
let home: ClaudeHome;
let project: string;
const processes: CliUnderPty[] = [];
const servers: http.Server[] = [];

beforeEach(async () => {
  anthropic = await startFakeAnthropic();
  telegram = await startFakeTelegram();
  project = mkdtempSync(path.join(tmpdir(), 'ab-tg-progress-'));
});

afterEach(async () => {
  await Promise.all(processes.splice(0).map((p) => p.stop()));
  for (const server of servers.splice(0)) server.close();
  await telegram.close();
  await anthropic.close();
  await home.cleanup();
  rmSync(project, { recursive: true, force: true });
});

async function claudeWithTelegram(baseUrl: string, oauthToken?: string): Promise<CliUnderPty> {
  home = await prepareClaudeHome({ baseUrl, cwd: project });
  const dataDir = path.join(home.home, '.agent-bridge');
  writeTelegramConfig(dataDir, telegram);
  const env = { ...home.env, AGENT_BRIDGE_HOME: dataDir, AGENT_BRIDGE_CLAUDE_PATH: claudeBinary() };
  if (oauthToken) {
    // A Claude.ai login rather than an API key.
    delete (env as Record<string, string | undefined>).ANTHROPIC_API_KEY;
    Object.assign(env, { CLAUDE_CODE_OAUTH_TOKEN: oauthToken });
  }
  const claude = new CliUnderPty(['run', 'claude', '--approve-from', 'telegram'], { cwd: project, env });
  processes.push(claude);
  await claude.waitForText('? for shortcuts');
  return claude;
}

const texts = () => telegram.messages(OWNER).map((m) => m.text ?? '');
const promptFor = (file: string) =>
  telegram.waitForMessage((m) => hasButtons(m) && (m.text ?? '').includes(file), 30_000);

async function allowAndFinish(claude: CliUnderPty, file: string): Promise<void> {
  const prompt = await promptFor(file);
  telegram.userPressesButton({ userId: OWNER, messageId: prompt.messageId, data: buttonData(prompt, '1.') });
  await waitFor('the file', () => existsSync(path.join(project, file)), { timeoutMs: 20_000 });
  await claude.waitForText('Tool finished');
}

/**
 * Claude reads plan rate limits from `anthropic-ratelimit-unified-*` answer headers, for Claude.ai logins
 * only: a proxy adds them in front of the fake API, and Claude runs with an OAuth token instead of a key.
 */
async function rateLimitedApi(target: string, resetsAt: { fiveHour: number; sevenDay: number }) {
  const server = http.createServer((req, res) => {
    const upstream = http.request(
      target + req.url,
      { method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, {
          ...answer.headers,
          'anthropic-ratelimit-unified-status': 'allowed',
          'anthropic-ratelimit-unified-5h-utilization': '0.45',
          'anthropic-ratelimit-unified-5h-reset': String(Math.floor(resetsAt.fiveHour / 1000)),
          'anthropic-ratelimit-unified-7d-utilization': '0.12',
          'anthropic-ratelimit-unified-7d-reset': String(Math.floor(resetsAt.sevenDay / 1000)),
        });
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('progress notes and the status footer with the real Claude Code', () => {
  it('posts what Claude says before a tool once, before its permission prompt; messages carry the footer', async () => {
    const claude = await claudeWithTelegram(anthropic.url);
    await claude.type('please run TOOL:progress-1.txt');
    const prompt = await promptFor('progress-1.txt');
    const before = telegram.messages(OWNER).filter((m) => m.messageId < prompt.messageId);
    expect(
      before.map((m) => m.text),
      JSON.stringify(texts()),
    ).toContain(NOTE);
    await allowAndFinish(claude, 'progress-1.txt');

    const reply = await telegram.waitForMessage((m) => (m.text ?? '').startsWith('Tool finished'), 15_000);
    // The offline key runs claude-opus-4-8[1m]; its statusLine reports it as "Opus 4.8 (1M context)".
    expect(reply.text).toMatch(/\n📊 Opus 4\.8 \(1M context\) \d+%$/);
    expect(reply.text).not.toMatch(/session:|weekly:/); // an API key has no plan rate limits
    expect(texts().filter((t) => t.includes('📊'))).toHaveLength(1); // notices carry no footer

    // The same words before the next tool are not posted again.
    await claude.type('please run TOOL:progress-2.txt');
    await allowAndFinish(claude, 'progress-2.txt');
    await telegram.waitForMessage((m) => (m.text ?? '').startsWith('Tool finished') && m !== reply, 15_000);
    expect(texts().filter((t) => t === NOTE)).toHaveLength(1);
    expect(texts().filter((t) => t.startsWith('🔄'))).toHaveLength(1);
  });

  it("shows the plan's session and weekly rate limits when Claude reports them", async () => {
    const now = Date.now();
    const api = await rateLimitedApi(anthropic.url, {
      fiveHour: now + (2 * 60 + 30) * 60_000 + 30_000,
      sevenDay: now + (5 * 24 + 3) * 3_600_000 + 30 * 60_000,
    });
    const claude = await claudeWithTelegram(api, 'sk-ant-oat01-fake-offline-token');
    // The limits come with the first answer; Claude's status line reports them a moment after it (~300 ms), and
    // a message's footer shows the latest report when the message is sent: the second answer carries them.
    await claude.type('hello there');
    await telegram.waitForMessage((m) => (m.text ?? '').includes('You said: hello there'), 20_000);
    const store = openStore({ dir: path.join(home.home, '.agent-bridge') });
    try {
      await waitFor('the limits reported', () => store.sessions.list().some((s) => s.usage?.weekly), {
        timeoutMs: 10_000,
      });
    } finally {
      store.close();
    }
    await claude.type('hello again');
    const reply = await telegram.waitForMessage(
      (m) => (m.text ?? '').includes('You said: hello again'),
      20_000,
    );
    expect(reply.text).toMatch(/\n📊 \S.* \d+% │ session:45%\(2h(29|30)m\) │ weekly:12%\(5d03h\)$/);
  });
});

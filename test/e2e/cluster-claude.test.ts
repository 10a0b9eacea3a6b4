import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic/server.js';
import { startFakeTelegram, type FakeMessage, type FakeTelegram } from '../fakes/telegram/server.js';
import { claudeBinary, prepareClaudeHome, type ClaudeHome } from '../support/claude-env.js';
import { cli } from '../support/cli-under-pty.js';
import { nodeSection, ServeMachine } from '../support/cluster-serve.js';
import { NATS_SERVER, NO_NATS, startNats, type NatsWorld } from '../support/nats-server.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { buttonData, hasButtons, OWNER, writeTelegramConfig } from '../support/telegram-setup.js';
import { waitFor } from '../support/wait.js';

/**
 * Three machines as three processes with data folders of their own, one real nats-server between them: a hub
 * with the Telegram bot (the fake), node `alpha` running the real Claude Code (against the fake Anthropic
 * API), node `beta` running a script that asks before it deploys. Each node reaches NATS through a relay the
 * test can cut (a partition). The answer to every prompt is counted on the node that owns it: 0 lost, 0 double.
 */

let nats: NatsWorld;
let anthropic: FakeAnthropic;
let telegram: FakeTelegram;
let claudeHome: ClaudeHome;
let project: string;
let hub: ServeMachine;
let alpha: ServeMachine;
let beta: ServeMachine;
const proxies: TcpProxy[] = [];
let betaProxy: TcpProxy;

const BASE_ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'xterm-256color', LANG: 'C.UTF-8' };

/** Waits for `go`, then asks; each answer is appended to answers.txt (what the agent really received). */
const DEPLOY_SCRIPT = [
  'echo "Preparing release 42"',
  'while [ ! -e go ]; do sleep 0.1; done',
  'read -p "Deploy release 42 to production? (y/n) " a',
  'echo "deploy: $a" >> answers.txt',
  'echo "deployed: $a"',
  'sleep 600',
].join('; ');

beforeEach(async () => {
  if (!NATS_SERVER) return;
  nats = await startNats({ nodes: ['alpha', 'beta'] });
  anthropic = await startFakeAnthropic();
  telegram = await startFakeTelegram();
  hub = new ServeMachine('hub', { ...BASE_ENV }, [
    '--nats',
    nats.url,
    '--nats-credentials',
    nats.keyFile('hub'),
  ]);
  writeTelegramConfig(hub.dataDir, telegram);

  const alphaProxy = await new TcpProxy({ host: '127.0.0.1', port: nats.port }).start();
  project = mkdtempSync(path.join(tmpdir(), 'ab-alpha-api-'));
  claudeHome = await prepareClaudeHome({ baseUrl: anthropic.url, cwd: project });
  alpha = new ServeMachine('alpha', { ...claudeHome.env, AGENT_BRIDGE_CLAUDE_PATH: claudeBinary() });
  alpha.writeConfig(
    `repos:\n  - name: api\n    dir: ${project}\n    agent: claude\n` +
      nodeSection('alpha', alphaProxy.url, nats.keyFile('alpha')),
  );

  betaProxy = await new TcpProxy({ host: '127.0.0.1', port: nats.port }).start();
  proxies.push(alphaProxy, betaProxy);
  beta = new ServeMachine('beta', { ...BASE_ENV, HOME: '/nonexistent' });
  const deploy = path.join(beta.root, 'deploy');
  mkdirSync(deploy);
  beta.writeConfig(
    `repos:\n  - name: deploy\n    dir: ${deploy}\n    agent: custom\n    startup: true\n` +
      `    command: ["bash", "--norc", "--noprofile", "-c", ${JSON.stringify(DEPLOY_SCRIPT)}]\n` +
      nodeSection('beta', betaProxy.url, nats.keyFile('beta')),
  );
  await hub.started();
  await waitFor('the hub polling Telegram', () => telegram.isPolling(), { timeoutMs: 15_000 });
});

afterEach(async () => {
  if (!NATS_SERVER) return;
  await Promise.all([hub.remove(), alpha.remove(), beta.remove()]);
  await Promise.all(proxies.splice(0).map((p) => p.cut()));
  await telegram.close();
  await anthropic.close();
  await claudeHome.cleanup();
  rmSync(project, { recursive: true, force: true });
  await nats.close();
});

const say = (text: string) => telegram.userSendsText({ userId: OWNER, text });
const promptAbout = (words: string, timeoutMs = 30_000) =>
  telegram.waitForMessage((m) => hasButtons(m) && (m.text ?? '').includes(words), timeoutMs);
const press = (message: { messageId: number }, data: string) =>
  telegram.userPressesButton({ userId: OWNER, messageId: message.messageId, data });
const botSaid = (pattern: RegExp, timeoutMs = 30_000) =>
  telegram.waitForMessage((m) => pattern.test(m.text ?? ''), timeoutMs);
const injected = async (machine: ServeMachine, promptId: string) =>
  (await machine.audit()).filter((e) => e.event === 'REPLY_INJECTED' && e.prompt_id === promptId).length;
/** The full id of the prompt behind a message, from its buttons' prefix and the node's own store. */
const promptIdOf = async (machine: ServeMachine, message: FakeMessage): Promise<string> => {
  const data = (message.reply_markup?.inline_keyboard ?? [])
    .flat()
    .find((b) => b?.callback_data?.startsWith('ans:'));
  const prefix = /^ans:([0-9a-f]+):/.exec(data?.callback_data ?? '')?.[1] ?? 'none';
  const detected = (await machine.audit()).find(
    (e) => e.event === 'PROMPT_DETECTED' && e.prompt_id?.startsWith(prefix),
  );
  if (!detected?.prompt_id) throw new Error(`no prompt ${prefix} on ${machine.name}`);
  return detected.prompt_id;
};

describe.skipIf(!NATS_SERVER)(`many machines over NATS: a hub and two nodes${NO_NATS}`, () => {
  it("a real Claude Code on a node, started and answered from the hub's Telegram; the hub killed between prompt and answer", async () => {
    await alpha.started();
    await waitFor(
      'alpha known to the hub',
      async () => {
        say('/nodes');
        return telegram.messages(OWNER).some((m) => /alpha · .*🟢 connected/.test(m.text ?? ''));
      },
      { timeoutMs: 20_000, intervalMs: 1_000 },
    );
    say('/start alpha api');
    await botSaid(/alpha: api started on alpha/);
    say('/sessions');
    await botSaid(/· claude · api · alpha/);
    say('please run TOOL:cluster-allow.txt');
    const prompt = await promptAbout('cluster-allow.txt', 60_000);
    expect(prompt.text).toMatch(/alpha/);
    const promptId = await promptIdOf(alpha, prompt);

    await hub.kill();
    await hub.started();
    await waitFor('the hub polling again', () => telegram.isPolling(), { timeoutMs: 15_000 });
    press(prompt, buttonData(prompt, '1.'));

    const file = path.join(project, 'cluster-allow.txt');
    await waitFor('the file Claude was allowed to make', () => existsSync(file), { timeoutMs: 30_000 });
    await waitFor(
      'the message edited with who answered',
      () => !hasButtons(prompt) && (prompt.text ?? '').includes(`by telegram:${OWNER}`),
      {
        timeoutMs: 15_000,
      },
    );
    await waitFor('the injection audited on alpha', async () => (await injected(alpha, promptId)) > 0);
    expect(await injected(alpha, promptId)).toBe(1);
    // The hub that came back did not send the prompt again: one message, edited.
    const copies = telegram
      .messages(OWNER)
      .filter((m) => /Permission/.test(m.text ?? '') && (m.text ?? '').includes('cluster-allow.txt'));
    expect(copies).toHaveLength(1);
  });

  it('a prompt raised while the hub is down reaches the chat when it returns, with what the agent said before', async () => {
    await beta.started();
    await botSaid(/Preparing release 42/);
    await hub.stop();
    writeFileSync(path.join(beta.root, 'deploy', 'go'), '');
    await waitFor('beta waits for an answer', async () =>
      (await beta.audit()).some((e) => e.event === 'PROMPT_DETECTED'),
    );
    await hub.started();
    const prompt = await promptAbout('Deploy release 42');
    expect(prompt.text).toMatch(/beta/);
    // The hub's own command line lists the node's session and prompt, with the machine.
    const approvals = await cli(['approvals'], hub.processEnv);
    expect(approvals.stdout).toMatch(/^ID\s+MACHINE\s+AGENT/);
    expect(approvals.stdout).toMatch(/\s+beta\s+custom\s+yes_no\s+.*Deploy release 42/);
    expect((await cli(['status'], hub.processEnv)).stdout).toMatch(/\s+beta\s+custom\s+running\s+1 prompt/);
    press(prompt, buttonData(prompt, '✅ Yes'));
    await botSaid(/deployed: y/);
    expect(readFileSync(path.join(beta.root, 'deploy', 'answers.txt'), 'utf8')).toBe('deploy: y\n');
  });

  it('a node cut off from NATS while its prompt is answered gets the answer once it is back, once', async () => {
    await beta.started();
    writeFileSync(path.join(beta.root, 'deploy', 'go'), '');
    const prompt = await promptAbout('Deploy release 42');
    const promptId = await promptIdOf(beta, prompt);
    await betaProxy.cut();
    await waitFor('beta noticed', () => /lost NATS/.test(beta.serve!.stderr), { timeoutMs: 30_000 });
    press(prompt, buttonData(prompt, '✅ Yes'));
    await waitFor('the hub took the answer', () =>
      telegram.callbackAnswers.some((a) => /Answered/.test(a.text ?? '')),
    );
    expect(existsSync(path.join(beta.root, 'deploy', 'answers.txt'))).toBe(false);
    await betaProxy.heal();
    await botSaid(/deployed: y/, 60_000);
    await waitFor('the message edited', () => !hasButtons(prompt), { timeoutMs: 15_000 });
    expect(readFileSync(path.join(beta.root, 'deploy', 'answers.txt'), 'utf8')).toBe('deploy: y\n');
    expect(await injected(beta, promptId)).toBe(1);
  });

  it('a node killed with its prompt open and brought back: the answer sent meanwhile is applied or refused, never lost, never twice', async () => {
    await beta.started();
    writeFileSync(path.join(beta.root, 'deploy', 'go'), '');
    const prompt = await promptAbout('Deploy release 42');
    const promptId = await promptIdOf(beta, prompt);
    await beta.kill();
    press(prompt, buttonData(prompt, '✅ Yes'));
    await waitFor('the hub took the answer', () =>
      telegram.callbackAnswers.some((a) => /Answered/.test(a.text ?? '')),
    );
    await beta.started();
    const outcome = await Promise.race([
      botSaid(/not applied on beta/, 60_000).then((m) => ({ refused: m.text ?? '' })),
      botSaid(/deployed: y/, 60_000).then(() => ({ refused: null })),
    ]);
    const audit = await beta.audit();
    if (outcome.refused !== null) {
      // This session died with its agent-bridge: the answer is refused, said, and nothing is typed.
      expect(outcome.refused).toMatch(/crashed|already failed/);
      expect(await injected(beta, promptId)).toBe(0);
      expect(audit.some((e) => e.event === 'REPLY_REJECTED' && e.prompt_id === promptId)).toBe(true);
      // The session came back and asks again: that prompt is answered once.
      const again = await promptAbout('Deploy release 42', 60_000).then(async (first) =>
        first.messageId === prompt.messageId ? promptAboutAfter(prompt.messageId) : first,
      );
      press(again, buttonData(again, '✅ Yes'));
      await botSaid(/deployed: y/);
    } else {
      expect(await injected(beta, promptId)).toBe(1);
    }
    expect(readFileSync(path.join(beta.root, 'deploy', 'answers.txt'), 'utf8')).toBe('deploy: y\n');
  });
});

function promptAboutAfter(messageId: number) {
  return telegram.waitForMessage(
    (m) => hasButtons(m) && m.messageId > messageId && (m.text ?? '').includes('Deploy release 42'),
    60_000,
  );
}

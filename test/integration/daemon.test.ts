import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TelegramChannel } from '../../src/channels/telegram/telegram-channel.js';
import { LOCAL_CHAT, TerminalChannel } from '../../src/channels/terminal/terminal-channel.js';
import type { Daemon, DaemonRepo, DaemonSettings } from '../../src/sessions/daemon/daemon.js';
import { openStore, type Store } from '../../src/store/store.js';
import { startFakeTelegram, type FakeTelegram } from '../fakes/telegram/server.js';
import { OWNER } from '../support/telegram-setup.js';
import { answerPrompt } from '../../src/sessions/answer-prompt.js';
import { openPrompt, yesNoPrompt } from '../support/temp-store.js';
import { chattyRepo, startTestDaemon } from '../support/test-daemon.js';
import { systemClock } from '../../src/core/clock.js';
import { HostConnection } from '../../src/sessions/host/host-connection.js';
import { endSessionHosts } from '../support/session-hosts.js';
import { processExists, waitFor } from '../support/wait.js';

let dir: string;
let store: Store;
let telegram: FakeTelegram;
let daemon: Daemon;
let terminalIn: PassThrough;
let terminalOut = '';

const repo = (name: string, chats: Record<string, string[]>): DaemonRepo => chattyRepo(name, dir, chats);

async function startDaemon(overrides: Partial<DaemonSettings> = {}) {
  const settings: DaemonSettings = {
    repos: [
      repo('web', { telegram: [String(OWNER)], terminal: [LOCAL_CHAT] }),
      repo('api', { terminal: [LOCAL_CHAT] }),
    ],
    idleTimeoutMs: 600_000,
    outputThreshold: 1500,
    resume: true,
    rateLimits: { user: { ratePerSec: 0.5, burst: 3 }, channel: { ratePerSec: 2, burst: 10 } },
    ...overrides,
  };
  terminalIn = new PassThrough();
  const terminalOutput = new PassThrough();
  terminalOutput.on('data', (d) => (terminalOut += String(d)));
  const started = await startTestDaemon(
    store,
    settings.repos,
    [
      {
        channel: new TelegramChannel({ token: telegram.token, apiRoot: telegram.apiRoot }),
        allowedUsers: new Set([String(OWNER)]),
        defaultChats: [{ chatId: String(OWNER) }],
        exclusive: true,
      },
      {
        channel: new TerminalChannel({ input: terminalIn, output: terminalOutput, user: 'me' }),
        allowedUsers: new Set(['me']),
        defaultChats: [{ chatId: LOCAL_CHAT }],
        exclusive: false,
      },
    ],
    { settings },
  );
  daemon = started.daemon;
  expect(started.hosted).toEqual(['telegram', 'terminal']);
}

const typeInTerminal = (line: string) => terminalIn.write(line + '\n');
const telegramSays = (pattern: RegExp, timeoutMs = 10_000) =>
  telegram.waitForMessage((m) => pattern.test(m.text ?? ''), timeoutMs);
const terminalSays = (pattern: RegExp, timeoutMs = 10_000) =>
  waitFor(`terminal: ${pattern}`, () => pattern.test(terminalOut), { timeoutMs });

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'ab-daemon-'));
  process.env.AGENT_BRIDGE_HOME = path.join(dir, 'data');
  store = openStore({ dir: path.join(dir, 'data') });
  telegram = await startFakeTelegram();
  terminalOut = '';
});

afterEach(async () => {
  await daemon?.stop();
  await endSessionHosts(path.join(dir, 'data'));
  store.close();
  await telegram.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('agent-bridge serve: two repositories, two channels', () => {
  it('starts a repository session on its first message and sends its output to every mapped channel', async () => {
    await startDaemon();
    telegram.userSendsText({ userId: OWNER, text: 'hello web' });
    await telegramSays(/web got: hello web/);
    await terminalSays(/web got: hello web/);
    expect(store.sessions.list().map((s) => s.label)).toEqual(['web']);
  });

  it('routes the terminal to the repository chosen with /select', async () => {
    await startDaemon();
    typeInTerminal('/select api');
    await terminalSays(/Messages here now go to api/);
    typeInTerminal('ping api');
    await terminalSays(/api got: ping api/);
    expect(telegram.messages(OWNER).some((m) => (m.text ?? '').includes('api got'))).toBe(false);
  });

  it("/switch to a session chooses its repository where the chat has several; another chat's session is refused", async () => {
    await startDaemon();
    typeInTerminal('/select api');
    await terminalSays(/Messages here now go to api/);
    typeInTerminal('one');
    await terminalSays(/api got: one/);
    typeInTerminal('/select web');
    typeInTerminal('two');
    await terminalSays(/web got: two/);
    const api = store.sessions.list().find((s) => s.label === 'api')!;
    typeInTerminal(`/switch ${api.id.slice(0, 8)}`);
    await terminalSays(new RegExp(`Messages here now go to api \\(session ${api.id.slice(0, 8)}`));
    typeInTerminal('three');
    await terminalSays(/api got: three/);
    expect(terminalOut).not.toContain('web got: three');
    // Telegram's chat is mapped to web alone: api's session is not one of its.
    telegram.userSendsText({ userId: OWNER, text: `/switch ${api.id.slice(0, 8)}` });
    await telegramSays(/is not one of this chat's: messages here go to web/);
  });

  it('sends long output as a file', async () => {
    await startDaemon();
    telegram.userSendsText({ userId: OWNER, text: 'LONG' });
    const file = await telegram.waitForMessage((m) => m.document !== undefined, 10_000);
    expect(file.document?.file_name).toMatch(/^response-\d{6}\.md$/);
    expect(file.document?.bytes.toString()).toContain('x'.repeat(3000));
    await terminalSays(/--- response-\d{6}\.md/);
  });

  it('answers /status, interrupts with /cancel and restarts with /restart', async () => {
    await startDaemon();
    telegram.userSendsText({ userId: OWNER, text: 'hi' });
    await telegramSays(/web got: hi/);
    telegram.userSendsText({ userId: OWNER, text: '/status' });
    await telegramSays(
      /web · Custom command \(terminal driver\) · running · idle \d+ s · \d+ prompt\(s\) waiting/,
    );
    telegram.userSendsText({ userId: OWNER, text: 'SLEEP' });
    await waitFor('the agent busy', () => true);
    telegram.userSendsText({ userId: OWNER, text: '/cancel' });
    await telegramSays(/web: interrupted/);
    await telegramSays(/web: interrupted$/m);
    const first = store.sessions.list()[0]!.id;
    telegram.userSendsText({ userId: OWNER, text: '/restart' });
    await telegramSays(/web: stopped; the next message starts/);
    telegram.userSendsText({ userId: OWNER, text: 'again' });
    await telegramSays(/web got: again/);
    expect(store.sessions.list().map((s) => s.id)).not.toContain(first);
  });

  it('stops an idle session with a notice to every channel, and starts it again on the next message', async () => {
    await startDaemon({ idleTimeoutMs: 1_500 });
    telegram.userSendsText({ userId: OWNER, text: 'wake' });
    await telegramSays(/web got: wake/);
    await telegramSays(/web: Custom command stopped after 2 s idle/, 15_000);
    await terminalSays(/stopped after 2 s idle/);
    // The notice says why before the agent is stopped: the store has it ended a moment later.
    await waitFor('the session ended in the store', () => store.sessions.list().length === 0);
    telegram.userSendsText({ userId: OWNER, text: 'back' });
    await telegramSays(/web got: back/);
  });

  it("gives prompts the config's time to live (defaults.prompt_ttl), in sessions it starts and takes back", async () => {
    await startDaemon({ promptTtlMs: { yes_no: 20_000 } });
    const ttlOfNextPrompt = async () => {
      telegram.userSendsText({ userId: OWNER, text: 'ASK' });
      await waitFor('the prompt', () => store.prompts.open().length === 1);
      const prompt = store.prompts.open()[0]!;
      // As `approvals answer` does, from another process (another connection to the store).
      const elsewhere = openStore({ dir: store.dir });
      expect(answerPrompt(elsewhere, { promptRef: prompt.id, raw: 'y', decidedBy: 'test' }).ok).toBe(true);
      elsewhere.close();
      await telegramSays(/web answered: y/);
      return prompt.expiresAt - prompt.createdAt;
    };
    telegram.userSendsText({ userId: OWNER, text: 'hi' });
    await telegramSays(/web got: hi/);
    expect(await ttlOfNextPrompt()).toBe(20_000);
    // The next serve takes the session back: its prompts wait as the config says too.
    await daemon.stop();
    await startDaemon({ promptTtlMs: { yes_no: 20_000 } });
    expect(await ttlOfNextPrompt()).toBe(20_000);
  });

  it('is not idle while a prompt waits for a person: it stops once the prompt is decided and the agent is quiet', async () => {
    await startDaemon({ idleTimeoutMs: 1_500, promptTtlMs: { yes_no: 4_000 } });
    telegram.userSendsText({ userId: OWNER, text: 'ASK' });
    await waitFor('the prompt', () => store.prompts.open().length === 1);
    const [prompt] = store.prompts.open();
    // Nobody answers: the prompt outlives two idle timeouts, expires, and its safe default (No) is typed.
    await telegramSays(/web answered: n/, 15_000);
    expect(store.prompts.get(prompt!.id)!.status).not.toBe('awaiting_reply');
    await telegramSays(/web: Custom command stopped after 2 s idle/, 15_000);
    await waitFor('the session ended', () => store.sessions.list().length === 0);
  });

  it("says once, in the repository's words, that its agent exited and that the next message starts it", async () => {
    await startDaemon();
    telegram.userSendsText({ userId: OWNER, text: 'hi' });
    await telegramSays(/web got: hi/);
    telegram.userSendsText({ userId: OWNER, text: 'EXIT' });
    await telegramSays(/web: Custom command exited \(exit code 3\); the next message starts it again/);
    await waitFor('the session ended', () => store.sessions.list().length === 0);
    telegram.userSendsText({ userId: OWNER, text: 'back' });
    await telegramSays(/web got: back/);
    const ends = telegram.messages(OWNER).filter((m) => /exited|ended/.test(m.text ?? ''));
    expect(ends.map((m) => m.text)).toEqual([
      'web: Custom command exited (exit code 3); the next message starts it again',
    ]);
  });

  it('limits a user politely (3 at once, then 1 every 2 s); the terminal is exempt from the user limit', async () => {
    await startDaemon();
    for (let i = 1; i <= 4; i++) telegram.userSendsText({ userId: OWNER, text: `m${i}` });
    await telegramSays(/Slow down a little: too many messages from you/);
    await telegramSays(/web got: m3/);
    expect(telegram.messages(OWNER).some((m) => (m.text ?? '').includes('web got: m4'))).toBe(false);
    for (let i = 1; i <= 4; i++) typeInTerminal(`t${i}`);
    await terminalSays(/web got: t4/);
  });

  it('prefixes messages with their source when two channels talk to one session at once', async () => {
    await startDaemon();
    telegram.userSendsText({ userId: OWNER, text: 'hello' });
    await telegramSays(/web got: hello/); // the session is up
    // Both at once (no wait between them on a busy machine): whichever comes second names its source.
    telegram.userSendsText({ userId: OWNER, text: 'from phone' });
    typeInTerminal('from desk');
    await telegramSays(/web got: (\[telegram\] from phone|\[terminal\] from desk)/);
  });

  it('shuts down gracefully: the agent goes on in its session host, its prompts stay pending; the next daemon takes it back', async () => {
    await startDaemon();
    telegram.userSendsText({ userId: OWNER, text: 'hi' });
    await telegramSays(/web got: hi/);
    const session = store.sessions.list()[0]!;
    const prompt = openPrompt(
      store,
      session.id,
      yesNoPrompt({ excerpt: 'Go? (y/n)', detail: 'Go? (y/n)', key: 'k' }),
    );
    await daemon.stop();
    expect(processExists(session.pid!)).toBe(true);
    expect(store.sessions.get(session.id)?.status).toBe('active');
    expect(store.prompts.get(prompt.id)?.status).toBe('awaiting_reply');
    // The next daemon (serve started again) takes the very same session back, agent and all.
    await startDaemon();
    expect(store.sessions.list().map((s) => s.id)).toEqual([session.id]);
    expect(store.sessions.get(session.id)?.owner.pid).toBe(process.pid);
    telegram.userSendsText({ userId: OWNER, text: 'again' });
    await telegramSays(/web got: again/);
    expect(store.sessions.list().map((s) => [s.id, s.pid])).toEqual([[session.id, session.pid]]);
  });

  it('sends the chats what the agent printed while no daemon ran, once the next one takes the session back', async () => {
    await startDaemon();
    telegram.userSendsText({ userId: OWNER, text: 'before' });
    await telegramSays(/web got: before/);
    const session = store.sessions.list()[0]!;
    await daemon.stop();
    // Someone at a terminal attached to the session (no daemon controls it) makes the agent print.
    const terminal = await HostConnection.open({
      dataDir: store.dir,
      socket: session.sessionHost!.socket,
      client: 'terminal',
      clock: systemClock,
    });
    let printed = '';
    terminal.onOutput((chunk) => (printed += String(chunk)));
    terminal.start();
    terminal.sendInput('while-away\r');
    await waitFor('the agent to answer', () => printed.includes('web got: while-away'));
    terminal.close();
    await startDaemon();
    await telegramSays(/web got: while-away/);
    // Once: what the chats had before is not sent again.
    await new Promise((resolve) => setTimeout(resolve, 700));
    const texts = telegram.messages(OWNER).map((m) => m.text ?? '');
    expect(texts.filter((t) => t.includes('web got: before'))).toHaveLength(1);
    expect(texts.filter((t) => t.includes('web got: while-away'))).toHaveLength(1);
  });
});

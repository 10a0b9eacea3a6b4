import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'vitest';
import { getAgent } from '../../src/agents/registry.js';
import { systemClock } from '../../src/core/clock.js';
import { AgentSession } from '../../src/sessions/agent-session.js';
import { openStore, type Store } from '../../src/store/store.js';
import { waitFor } from '../support/wait.js';

/**
 * A Claude-like input box that shows at once, then goes on starting up for `startupMs`: it prints a line of
 * progress every 100 ms and drops the keys typed meanwhile (as Codex and Gemini CLI do on their first message).
 */
const lateReader = (startupMs: number) => `
  const rule = '─'.repeat(60);
  let typed = '', sent = [], ticks = 0;
  const draw = () => process.stdout.write('\\x1b[2J\\x1b[H' + sent.map((m) => 'SENT: ' + m + '\\r\\n').join('')
    + rule + '\\r\\n❯ ' + typed + '\\r\\n' + rule + '\\r\\n  starting up ' + ticks);
  process.stdin.setRawMode(true);
  draw();
  const readsFrom = Date.now() + ${startupMs};
  const progress = setInterval(() => { ticks++; draw(); if (Date.now() >= readsFrom) clearInterval(progress); }, 100);
  process.stdin.on('data', (data) => {
    if (Date.now() < readsFrom) return;
    for (const ch of data.toString()) {
      if (ch !== '\\r') typed += ch;
      else if (typed) { sent.push(typed); typed = ''; }
    }
    draw();
  });`;

let cwd: string;
let store: Store;
const sessions: AgentSession[] = [];

beforeEach(() => {
  cwd = realpathSync(mkdtempSync(path.join(tmpdir(), 'ab-ready-')));
  store = openStore({ dir: path.join(cwd, '.agent-bridge'), clock: systemClock });
});

afterEach(async () => {
  for (const session of sessions.splice(0)) {
    const exit = await session.driver.stop();
    await session.finish(exit, 'terminated').catch(() => undefined);
  }
  store.close();
  rmSync(cwd, { recursive: true, force: true });
});

describe('an agent ready for its first message', () => {
  it('is one whose input box shows and that stopped printing: a message sent then is not dropped', async () => {
    const session = await AgentSession.start({
      spec: getAgent('claude'),
      command: process.execPath,
      args: ['-e', lateReader(800)],
      cwd,
      env: { PATH: process.env.PATH, HOME: cwd, LANG: 'C.UTF-8' },
      cols: 100,
      rows: 30,
      autoTrust: true,
      record: false,
      store,
      clock: systemClock,
    });
    sessions.push(session);
    await session.whenReady();
    await session.terminal!.sendText('read the notes please');
    const screen = async () => (await session.terminal!.snapshot()).text;
    await waitFor('the message sent', async () => (await screen()).includes('SENT: read the notes please'));
  });
});

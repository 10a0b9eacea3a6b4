import { afterEach, describe, expect, it } from 'vitest';
import { eventsFromHook } from '../../src/drivers/hooks/claude-hook-events.js';
import { OutputExtractor } from '../../src/drivers/terminal/output-extractor.js';
import { ScreenModel } from '../../src/drivers/terminal/screen.js';
import { auditEntries, cli } from '../support/cli-under-pty.js';
import { FakeClock } from '../support/fake-clock.js';
import { everythingStored, ScriptWorld } from '../support/script-session.js';
import { tempStore, type TempStore } from '../support/temp-store.js';

// Issue 12, item 12: tokens that wrap across screen rows were only partly redacted (a 109-character sk-ant-
// key left a 46-character tail), and NAME_KEY=, *_SECRET=, *_TOKEN=, PASSWORD=, user:pass@ URLs, glpat-, npm_,
// sk_live_, ghp_ and AWS keys passed through. Nothing of them may reach the store, the audit log, a chat or
// the web.

const SECRETS = {
  anthropic: 'sk-ant-api03-' + 'Qx7_kP2-vN9m'.repeat(8).slice(0, 96),
  telegram: '8123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1',
  slack: 'xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx',
  gitlab: 'glpat-Zr4xW8qL1mN6bV3cT9yK',
  npm: 'npm_Tq8Lz2Wx5Nc7Vb1Mk4Jh6Gf9Dd3Ss0Aa2Pp8',
  stripe: 'sk_live_51HxQz8Lk2Wn5Tb7Vc1Mj4Hg6Fd9',
  github: 'ghp_Wq3Er5Ty7Ui9Op1As2Df4Gh6Jk8Lz0Xc2Vb',
  awsId: 'AKIAZ7Q3W5E8R2T4Y6U1',
  awsSecret: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq81LkPw',
  nameKey: 'Vd83kLq0Zp2Mx7Ny',
  secret: 'Hs61oPq2Lm8Nw3Xy',
  token: 'Tk47uRe9Wq1Zx5Cv',
  password: 'Pw93hunter2Qz7',
  urlPassword: 'Ur5pa55Wq8Zx1',
};

const SCREEN = [
  `export ANTHROPIC_API_KEY=${SECRETS.anthropic}`,
  `bot token ${SECRETS.telegram} and ${SECRETS.slack}`,
  `${SECRETS.gitlab} ${SECRETS.npm} ${SECRETS.stripe} ${SECRETS.github}`,
  `aws ${SECRETS.awsId} AWS_SECRET_ACCESS_KEY=${SECRETS.awsSecret}`,
  `DEPLOY_KEY=${SECRETS.nameKey} CLIENT_SECRET=${SECRETS.secret} GH_TOKEN=${SECRETS.token}`,
  `PASSWORD=${SECRETS.password} db=postgres://app:${SECRETS.urlPassword}@db.local/app`,
];

/** Every 8-character piece of every secret found in `text`. */
function leaks(text: string): string[] {
  const found: string[] = [];
  for (const secret of Object.values(SECRETS))
    for (let at = 0; at + 8 <= secret.length; at++) {
      const piece = secret.slice(at, at + 8);
      if (text.includes(piece)) found.push(piece);
    }
  return [...new Set(found)];
}

let world: ScriptWorld | null = null;
let store: TempStore | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
  store?.remove();
  store = null;
});

describe('secrets on a terminal', () => {
  it('never reach a prompt, the store or the audit log, even where the terminal wrapped them', async () => {
    world = new ScriptWorld();
    const script = SCREEN.map((line) => `echo '${line}'`).join('; ');
    const run = world.run(`${script}; read -r -p "Deploy now? (y/n) " a; echo "got $a"; sleep 30`, {
      cols: 37,
    });
    const prompt = await world.nextPrompt();
    expect(prompt.detail).toContain('[redacted]');
    expect(leaks(JSON.stringify(prompt))).toEqual([]);
    const answered = await cli(['approvals', 'answer', prompt.id, 'y'], world.env);
    expect(answered.code).toBe(0);
    await run.waitForText('got y');
    await run.stop();

    const stored = everythingStored(world.env.AGENT_BRIDGE_HOME!, { recordings: false });
    expect(leaks(stored)).toEqual([]);
    expect(leaks(JSON.stringify(await auditEntries(world.env)))).toEqual([]);
  });

  it.each([19, 37, 80])('never reach a chat as clean output, at %i columns', async (cols) => {
    const clock = new FakeClock();
    const screen = new ScreenModel({ cols, rows: 10, clock });
    const extractor = new OutputExtractor(screen);
    const taken: string[] = [];
    // Printed the way programs print: a line in pieces, sometimes stopping mid-token.
    for (const line of SCREEN) {
      const cut = Math.floor(line.length / 2);
      for (const part of [line.slice(0, cut), line.slice(cut) + '\r\n']) {
        screen.feed(Buffer.from(part));
        await screen.catchUp();
        taken.push(extractor.take());
        expect(leaks(screen.snapshot().text)).toEqual([]);
      }
    }
    const chat = taken.join('\n');
    expect(chat).toContain('export ANTHROPIC_API_KEY=[redacted]');
    expect(leaks(chat)).toEqual([]);
    screen.dispose();
  });
});

describe('secrets at the top of the screen', () => {
  it.each(SCREEN)(
    'stay hidden when their line began far above, a long line in the scrollback: %s',
    async (line) => {
      // A long line (a log blob) wraps over hundreds of rows; the secret's row is cut by the top of the screen.
      const cols = 40;
      const rows = 10;
      const filler = 'lorem ipsum dolor sit amet '.repeat(2_000);
      const screen = new ScreenModel({ cols, rows, clock: new FakeClock() });
      // The text after the secret fills the screen but for a few columns up to two rows: the top rows show
      // the secret's tail while its start, and the line's, are rows above.
      for (let after = (rows - 2) * cols; after < rows * cols; after += 9) {
        const tail = ' and more'.repeat(Math.ceil(after / 9)).slice(0, after);
        screen.feed(Buffer.from('\x1b[2J\x1b[3J\x1b[H' + filler + line + tail));
        await screen.catchUp();
        expect(leaks(screen.snapshot().text)).toEqual([]);
        expect(leaks(screen.tail(rows + 5).join('\n'))).toEqual([]);
      }
      screen.dispose();
    },
  );
});

describe('secrets from hooks and everywhere else', () => {
  it('are redacted at the store: messages for chats, prompts, typed text, nested audit fields', () => {
    store = tempStore();
    store.sessions.create({ id: 's1', agent: 'claude', cwd: '/w', pid: 1, recording: null });
    const said = eventsFromHook('Stop', { last_assistant_message: SCREEN.join('\n') });
    for (const event of said)
      if (event.type === 'message') store.channels.addMessage('s1', 'message', event.text);
    store.prompts.create(
      's1',
      {
        kind: 'question',
        confidence: 'exact',
        excerpt: SCREEN[0]!,
        detail: SCREEN.join('\n'),
        choices: [{ number: 1, label: `use ${SECRETS.github}` }],
        safeDefault: null,
        key: 'k',
      },
      60_000,
      'hook',
    );
    store.channels.addInput('s1', `here: PASSWORD=${SECRETS.password}`, 'telegram:1');
    expect(store.channels.takeInputs('s1')[0]!.text).toContain(SECRETS.password); // typed as sent
    store.audit.record('HOOK_RECEIVED', {
      session_id: 's1',
      payload: { tool_input: { command: SCREEN[4] } },
    });
    store.db.pragma('wal_checkpoint(TRUNCATE)');
    expect(leaks(everythingStored(store.dir))).toEqual([]);
  });
});

// The agents' vocabularies in the real terminal driver: how /cancel stops a turn, and how an answer starts
// from the dialog as it is on screen when it is typed. The programs here draw the agents' dialogs as the real
// CLIs do (test/golden/prompts) and record the bytes they get.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getAgent } from '../../src/agents/registry.js';
import type { DetectedPrompt } from '../../src/core/prompt.js';
import { parseReply } from '../../src/core/prompt.js';
import { INTERRUPT_TRIES } from '../../src/drivers/terminal/interrupt-keys.js';
import { TerminalSession } from '../../src/drivers/terminal/terminal-session.js';
import { waitFor } from '../support/wait.js';

let dir: string;
const sessions: TerminalSession[] = [];

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ab-keys-'));
});
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.stop()));
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Draws `screen` (lines), then records each byte it reads (raw, no echo) to ./got, and a SIGINT to ./sig;
 * after `redraw` bytes it draws `then` instead (as a TUI redraws after a key).
 */
async function start(agent: string, screen: string[], then?: { after: number; screen: string[] }) {
  // %b reads the \r\n between the lines; the text itself has no backslash, quote or $.
  const draw = (lines: string[]) => `printf '\\033[2J\\033[H%b' "${lines.join('\\r\\n')}"`;
  const script = [
    `trap 'echo SIGINT >> sig' INT`,
    'stty raw -echo',
    draw(screen),
    'n=0',
    'while true; do',
    '  c=$(dd bs=1 count=1 2>/dev/null | od -An -tx1 | tr -d " ")',
    '  [ -n "$c" ] && echo "$c" >> got && n=$((n+1))',
    ...(then ? [`  [ "$n" = "${then.after}" ] && ${draw(then.screen)}`] : []),
    'done',
  ].join('\n');
  const session = await TerminalSession.start({
    command: '/bin/bash',
    args: ['--norc', '--noprofile', '-c', script],
    cwd: dir,
    env: { PATH: process.env.PATH, HOME: dir, LANG: 'C.UTF-8' },
    cols: 120,
    rows: 30,
    vocabulary: getAgent(agent).screens,
  });
  sessions.push(session);
  const prompts: DetectedPrompt[] = [];
  session.on((event) => {
    if (event.type === 'prompt') prompts.push(event.prompt);
  });
  return { session, prompts };
}

const got = (): string[] => {
  try {
    return readFileSync(path.join(dir, 'got'), 'utf8').trim().split('\n');
  } catch {
    return [];
  }
};
const signalled = () => {
  try {
    return readFileSync(path.join(dir, 'sig'), 'utf8');
  } catch {
    return '';
  }
};

const COPILOT_FORM = [
  ' Copilot needs information.',
  ' Which color do you prefer?',
  '',
  ' Color:',
  ' ❯ Red',
  '   Blue',
  '   Other (type your answer)',
  '',
  ' ↑/↓ select · enter accept · ctrl+d decline · esc cancel',
];

const RULE = '─'.repeat(100);
/** Copilot CLI running a command: its input box, and a footer that says Esc twice stops it. */
const COPILOT_WORKING = [' ● Shell: sleep 60', '', RULE, '❯ ', RULE, ' ○ Working · esc esc interrupt'];
const COPILOT_IDLE = [' ● Operation cancelled by user', '', RULE, '❯ ', RULE, ' / commands · ? help'];

describe('the agents’ keys in the terminal driver', () => {
  it('Copilot: /cancel types Esc twice again while the turn goes on (two read at once are one Alt+Esc)', async () => {
    // The first two presses are lost, as when the CLI was too busy to read each by itself.
    const { session } = await start('copilot', COPILOT_WORKING, { after: 4, screen: COPILOT_IDLE });
    await waitFor('the program to draw', async () => (await session.snapshot()).text.includes('Working'));
    await session.interrupt();
    expect(got()).toEqual(['1b', '1b', '1b', '1b']);
    expect((await session.snapshot()).text).toContain('? help');
    expect(signalled()).toBe('');
  });

  it('Copilot: /cancel types Esc twice once when the turn stops, and at most three times when it never does', async () => {
    const stops = await start('copilot', COPILOT_WORKING, { after: 2, screen: COPILOT_IDLE });
    await waitFor('the program to draw', async () =>
      (await stops.session.snapshot()).text.includes('Working'),
    );
    await stops.session.interrupt();
    expect(got()).toEqual(['1b', '1b']);
    await stops.session.stop();
    rmSync(path.join(dir, 'got'), { force: true });
    const never = await start('copilot', COPILOT_WORKING);
    await waitFor('the program to draw', async () =>
      (await never.session.snapshot()).text.includes('Working'),
    );
    await never.session.interrupt();
    // Done typing: the program reads the last press, and nothing comes after it.
    await waitFor('the last press read', () => got().length >= 2 * INTERRUPT_TRIES);
    expect(got()).toEqual(Array.from({ length: 2 * INTERRUPT_TRIES }, () => '1b'));
  });

  it.each(['codex', 'gemini', 'copilot'])(
    '%s: /cancel types Esc, never a SIGINT (which ends the CLI itself)',
    async (agent) => {
      const { session } = await start(agent, ['working…']);
      await waitFor('the program to draw', async () => (await session.snapshot()).text.includes('working'));
      session.interrupt();
      await waitFor('a byte', () => got().length > 0);
      expect(got()).toEqual(['1b']);
      expect(signalled()).toBe('');
    },
  );

  it('Claude Code: /cancel at the folder-trust prompt types nothing (Esc there exits Claude)', async () => {
    const trust = [
      ' Quick safety check: Is this a project you created or one you trust?',
      '',
      ' ❯ 1. Yes, I trust this folder',
      '   2. No, exit',
      '',
      ' Enter to confirm · Esc to cancel',
    ];
    const { session, prompts } = await start('claude', trust);
    await waitFor('the trust prompt', () => prompts.length > 0);
    session.interrupt();
    await session.sendKeys('x');
    await waitFor('a byte', () => got().length > 0);
    expect(got()).toEqual(['78']);
    expect(signalled()).toBe('');
  });

  it('Copilot: a form answered with arrows from where its highlight is when the answer is typed', async () => {
    // A person pressed ↓ at the terminal after the prompt was raised: the highlight is on Blue now.
    const moved = COPILOT_FORM.map((line) => line.replace('❯ Red', '  Red').replace('  Blue', '❯ Blue'));
    const { session, prompts } = await start('copilot', COPILOT_FORM, { after: 3, screen: moved });
    await waitFor('the form', () => prompts.length > 0);
    const raised = prompts[0]!;
    expect(raised.choices.map((c) => c.label)).toEqual(['Red', 'Blue', 'Other (type your answer)']);
    await session.sendKeys('\x1b[B');
    await waitFor('the redraw', async () => (await session.snapshot()).text.includes('❯ Blue'));
    expect(await session.answer(raised, parseReply('3', raised))).toBe('\x1b[B\r');
    await waitFor('the answer', () => got().length >= 7);
    // ↓ (1b 5b 42) from the person, then ↓ and Enter from the answer: Other, not Blue's neighbour twice.
    expect(got()).toEqual(['1b', '5b', '42', '1b', '5b', '42', '0d']);
  });

  it('Gemini: a multi-select answer goes a box at a time, each once drawn (a tick typed before the last one is drawn is lost)', async () => {
    const { session } = await startSlowMultiSelect();
    const prompts: DetectedPrompt[] = [];
    session.on((event) => {
      if (event.type === 'prompt') prompts.push(event.prompt);
    });
    await waitFor('the question', () => prompts.length > 0);
    const raised = prompts[0]!;
    expect(raised.choices.filter((c) => c.checkbox).map((c) => c.label)).toEqual(['Cheese', 'Ham', 'Olives']);
    expect(await session.answer(raised, parseReply('1,3', raised))).toBe('13\x1b[A\x1b[A\x1b[A\r');
    await waitFor('the submitted answer', async () =>
      /SUBMITTED: Cheese, Olives/.test((await session.snapshot()).text),
    );
    expect(readFileSync(path.join(dir, 'lost'), { encoding: 'utf8', flag: 'a+' })).toBe('');
  });

  it('Gemini: a box never drawn ticked stops the answer, and the ticks are never submitted', async () => {
    const { session } = await startSlowMultiSelect({ ignoresDigits: true });
    const prompts: DetectedPrompt[] = [];
    session.on((event) => {
      if (event.type === 'prompt') prompts.push(event.prompt);
    });
    await waitFor('the question', () => prompts.length > 0);
    const raised = prompts[0]!;
    await expect(session.answer(raised, parseReply('1,3', raised))).rejects.toThrow(
      /did not show box 1 ticked/,
    );
    expect(got()).toEqual(['"1"']);
  });
});

/**
 * Gemini CLI's multi-select (test/golden/prompts/gemini/question-multi-select) as a program that draws a tick
 * only 600 ms after its digit (a machine busy re-rendering), and loses a digit that comes before that (as a
 * React state update taken before the last render can be); ↑ past the first box reaches Done, Enter submits.
 */
async function startSlowMultiSelect(options: { ignoresDigits?: boolean } = {}) {
  const script = `
const ignoresDigits = ${options.ignoresDigits === true};
const fs = require('node:fs');
const labels = ['Cheese', 'Ham', 'Olives'];
const ticked = new Set();
let at = 1; let rendering = false;
const bar = '─'.repeat(60);
const row = (text) => '│ ' + text.padEnd(60) + ' │';
function draw() {
  const lines = ['╭' + bar + '──╮', row('Answer Questions'), row(''), row('Which toppings?'), row('(Select all that apply)'), row(''), row(at === 0 ? '● Done' : '  Done')];
  labels.forEach((label, i) => {
    const n = i + 1;
    lines.push(row((at === n ? '● ' : '  ') + n + '. [' + (ticked.has(n) ? '✓' : ' ') + '] ' + label));
    lines.push(row('         The ' + label + ' one'));
  });
  lines.push(row(''), row('Enter to select · ↑/↓ to navigate · Esc to cancel'), '╰' + bar + '──╯');
  process.stdout.write('\\x1b[2J\\x1b[H' + lines.join('\\r\\n'));
}
process.stdin.setRawMode(true);
draw();
process.stdin.on('data', (data) => {
  const key = data.toString('latin1');
  fs.appendFileSync('got', JSON.stringify(key) + '\\n');
  if (/^[1-3]$/.test(key)) {
    if (ignoresDigits) return;
    if (rendering) return fs.appendFileSync('lost', key);
    rendering = true;
    const n = Number(key);
    setTimeout(() => { rendering = false; ticked.has(n) ? ticked.delete(n) : ticked.add(n); at = n; draw(); }, 600);
  } else if (key === '\\x1b[A') { at = Math.max(0, at - 1); draw(); }
  else if (key === '\\r' && at === 0) {
    process.stdout.write('\\x1b[2J\\x1b[HSUBMITTED: ' + labels.filter((_, i) => ticked.has(i + 1)).join(', ') + '\\r\\n');
  }
});
`;
  const session = await TerminalSession.start({
    command: process.execPath,
    args: ['-e', script],
    cwd: dir,
    env: { PATH: process.env.PATH, HOME: dir, LANG: 'C.UTF-8' },
    cols: 120,
    rows: 30,
    vocabulary: getAgent('gemini').screens,
  });
  sessions.push(session);
  return { session };
}

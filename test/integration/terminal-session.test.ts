import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/core/events.js';
import type { ReplyAction } from '../../src/core/prompt.js';
import { readProcess } from '../../src/drivers/terminal/process-tree.js';
import { TerminalSession, type TerminalSessionOptions } from '../../src/drivers/terminal/terminal-session.js';
import { genericScreens } from '../../src/agents/generic-screens.js';
import { claudeScreens } from '../../src/agents/claude/screens.js';
import { geminiScreens } from '../../src/agents/gemini/screens.js';
import { FakeClock } from '../support/fake-clock.js';
import { processExists, waitFor } from '../support/wait.js';

let dir: string;
const sessions: TerminalSession[] = [];

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ab-term-'));
});
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.stop()));
  rmSync(dir, { recursive: true, force: true });
});

async function start(script: string, options: Partial<TerminalSessionOptions> = {}) {
  const session = await TerminalSession.start({
    command: '/bin/bash',
    args: ['--norc', '--noprofile', '-c', script],
    cwd: dir,
    env: { PATH: process.env.PATH, HOME: dir, LANG: 'C.UTF-8' },
    ...options,
  });
  sessions.push(session);
  const events: AgentEvent[] = [];
  session.on((event) => events.push(event));
  return { session, events };
}

async function screenText(session: TerminalSession): Promise<string> {
  return (await session.snapshot()).text;
}

function until(session: TerminalSession, text: string | RegExp, timeoutMs = 10_000) {
  return waitFor(
    `screen to show ${String(text)}`,
    async () => {
      const screen = await screenText(session);
      return typeof text === 'string' ? screen.includes(text) : text.test(screen);
    },
    { timeoutMs },
  );
}

describe('terminal session in a real PTY', () => {
  it('shows what a person would see: text, cursor, window title, size', async () => {
    const { session } = await start('printf "\\033]0;my title\\007"; printf "hello\\nworld"; sleep 30');
    await until(session, 'world');
    const snap = await session.snapshot();
    expect(snap.lines.slice(0, 2)).toEqual(['hello', 'world']);
    expect(snap.cursor).toEqual({ x: 5, y: 1 });
    expect(snap.title).toBe('my title');
    expect([snap.cols, snap.rows]).toEqual([80, 24]);
  });

  it('renders redraws: the screen holds the final state, not the bytes', async () => {
    const { session } = await start(
      'printf "progress 10%%"; printf "\\rprogress 99%%"; printf "\\033[2J\\033[5;3Hredrawn"; sleep 30',
    );
    await until(session, 'redrawn');
    const snap = await session.snapshot();
    expect(snap.text).not.toContain('progress');
    expect(snap.lines[4]).toBe('  redrawn');
  });

  it('answers a question typed into the program', async () => {
    const { session, events } = await start('read -p "Your name? " name; echo "Hello, $name!"; sleep 30');
    await until(session, 'Your name?');
    await session.sendText('Ada');
    await until(session, 'Hello, Ada!');
    expect(events.some((e) => e.type === 'output')).toBe(true);
  });

  it('sends multi-line text as one bracketed paste when the program enabled it', async () => {
    const { session } = await start('stty -echo; printf "\\033[?2004h"; cat -v');
    await waitFor('bracketed paste mode', async () => (await session.snapshot()).bracketedPaste);
    await session.sendText('line1\nline2', true);
    await until(session, 'line2^[[201~');
    expect(await screenText(session)).toContain('^[[200~line1');
  });

  it('submits a multi-line paste once the program has shown it, however long that takes', async () => {
    // A busy TUI: the paste shows 1.5 s later, and an Enter read before then is a new line, not a submit.
    // Raw mode before bracketed paste is announced: a paste sent at the announcement is never echoed by the tty.
    const program = `
      process.stdin.setRawMode(true);
      process.stdout.write('\\x1b[?2004h> ');
      let shown = false;
      process.stdin.on('data', (data) => {
        const text = data.toString();
        if (text.includes('\\x1b[201~')) setTimeout(() => { shown = true; process.stdout.write('[pasted]'); }, 1500);
        if (text.endsWith('\\r')) process.stdout.write(shown ? ' SUBMITTED' : ' NEWLINE');
      });`;
    const { session } = await start(`exec ${JSON.stringify(process.execPath)} -e ${shellQuote(program)}`);
    await waitFor('bracketed paste mode', async () => (await session.snapshot()).bracketedPaste);
    await session.sendText('read the notes\n/tmp/notes.txt', true);
    await until(session, /SUBMITTED|NEWLINE/);
    expect(await screenText(session)).toContain('> [pasted] SUBMITTED');
  });

  describe('a message left in an input box', () => {
    // A Claude-like input box between two rules. It drops the first `dropped` Enters (a busy TUI that took
    // them as new lines of the paste, or missed them), then submits: the box empties, the message goes above.
    const boxProgram = (dropped: number, echoAfterMs = 0) => `
      const rule = '─'.repeat(60);
      let typed = '', enters = 0, sent = [];
      const draw = () => process.stdout.write('\\x1b[2J\\x1b[H' + sent.map((m) => 'SENT: ' + m + '\\r\\n').join('')
        + rule + '\\r\\n❯ ' + typed.split('\\n').join('\\r\\n  ') + '\\r\\n' + rule + '\\r\\n  enters: ' + enters);
      process.stdin.setRawMode(true);
      process.stdout.write('\\x1b[?2004h');
      draw();
      process.stdin.on('data', (data) => setTimeout(() => take(data), ${echoAfterMs}));
      const take = (data) => {
        const text = data.toString().replace(/\\x1b\\[20[01]~/g, '');
        for (const ch of text) {
          if (ch !== '\\r') { typed += ch; continue; }
          enters++;
          if (enters > ${dropped} && typed) { sent.push(typed.split('\\n').join(' / ')); typed = ''; }
        }
        draw();
      };`;

    /** Sends a two-line message to the box that drops `dropped` Enters; the screen once it was sent. */
    async function sendToBox(
      dropped: number,
      { echoAfterMs = 0, message = 'read the notes\n/tmp/notes.txt' } = {},
    ): Promise<string> {
      const program = `exec ${JSON.stringify(process.execPath)} -e ${shellQuote(boxProgram(dropped, echoAfterMs))}`;
      const { session } = await start(program, { vocabulary: claudeScreens });
      await until(session, 'enters: 0');
      await session.sendText(message, true);
      await until(session, `SENT: ${message.split('\n').join(' / ')}`);
      return screenText(session);
    }

    it('is sent with Enter once more when the program dropped the first', async () => {
      expect(await sendToBox(1)).toContain('enters: 2');
    });

    it('is sent again when the program shows it only after its Enter was typed (and dropped it)', async () => {
      // A program just started, busy: it shows the keys 300 ms late (the box empty meanwhile, as after a submit).
      expect(await sendToBox(1, { echoAfterMs: 300, message: 'read the notes' })).toContain('enters: 2');
    });

    it('is sent again when the program shows it only after the first wait for it (busy for seconds)', async () => {
      // Its keys show 2.5 s late, past the 2 s the box is first watched for, and its first Enter is dropped.
      expect(await sendToBox(1, { echoAfterMs: 2_500, message: 'read the notes' })).toContain('enters: 2');
    });

    it('gets no second Enter when the first one was taken', async () => {
      expect(await sendToBox(0)).toContain('enters: 1');
    });
  });

  describe("words typed into a dialog's own field", () => {
    // Gemini CLI's plan approval: 3 opens "Type your feedback..." in place, the words show as that option,
    // Enter sends them. This one drops the first `dropped` Enters (a busy TUI took one as part of the paste)
    // and, with `wordsLateMs`, shows the words typed into the field that much later (a busy machine).
    const planProgram = (dropped: number, wordsLateMs = 0) => `
      const row = (text) => '│ ' + text.padEnd(66) + ' │\\r\\n';
      const options = ['Yes, automatically accept edits', 'Yes, manually accept edits'];
      let field = null, enters = 0, sent = null;
      const draw = () => {
        let out = '\\x1b[2J\\x1b[H';
        if (sent !== null) out += 'FEEDBACK: ' + sent + ' enters: ' + enters;
        else {
          const third = field === null ? 'Type your feedback...' : field || 'Type your feedback...';
          const mark = (n) => ((field === null ? 1 : 3) === n ? '●' : ' ');
          out += '╭' + '─'.repeat(68) + '╮\\r\\n' + row('Ready to start implementation?') + row('');
          options.forEach((o, i) => (out += row(mark(i + 1) + ' ' + (i + 1) + '.  ' + o)));
          out += row(mark(3) + ' 3.  ' + third) + row('') + row('Enter to select · Esc to cancel');
          out += '╰' + '─'.repeat(68) + '╯';
        }
        process.stdout.write(out);
      };
      process.stdin.setRawMode(true);
      draw();
      process.stdin.on('data', (data) => {
        for (const ch of data.toString()) {
          if (ch === '\\r') {
            enters++;
            if (enters > ${dropped} && field && sent === null) sent = field;
          } else if (field === null && ch === '3') field = '';
          else if (field !== null && sent === null) field += ch;
        }
        if (field && ${wordsLateMs} > 0) setTimeout(draw, ${wordsLateMs});
        else draw();
      });`;

    async function answerPlan(dropped: number, wordsLateMs = 0): Promise<TerminalSession> {
      const program = `exec ${JSON.stringify(process.execPath)} -e ${shellQuote(planProgram(dropped, wordsLateMs))}`;
      const { session, events } = await start(program, { vocabulary: geminiScreens });
      const prompt = await waitFor(
        'the plan dialog raised',
        () => events.flatMap((e) => (e.type === 'prompt' ? [e.prompt] : []))[0],
      );
      expect(prompt.kind).toBe('plan');
      expect(await session.answer(prompt, { type: 'choice', number: 3, text: 'add a step 3' })).toBe(
        '3add a step 3\r',
      );
      return session;
    }

    it('are sent with Enter once more when the dialog kept them in its field', async () => {
      await until(await answerPlan(1), 'FEEDBACK: add a step 3 enters: 2');
    });

    it('are sent with Enter once more when the field showed them only after their Enter', async () => {
      await until(await answerPlan(1, 500), 'FEEDBACK: add a step 3 enters: 2');
    });

    it('get no second Enter when the first one was taken', async () => {
      const session = await answerPlan(0);
      await until(session, 'FEEDBACK: add a step 3 enters: 1');
    });
  });

  describe('a "No" that ends the turn (Gemini CLI)', () => {
    // Gemini CLI's input box and tool confirmation: a message starting TOOL asks to run one; 3 ("No, suggest
    // changes") cancels, the box comes back (holding the last message again when `restores`), and words go in
    // as the next message. The box drops the first `dropped` Enters after the "No" (a busy TUI). Ctrl-U empties
    // the line left of the cursor, Backspace takes a character back.
    const geminiProgram = (dropped: number, restores: boolean) => `
      const row = (text) => '│ ' + text.padEnd(66) + ' │\\r\\n';
      let asking = false, typed = '', sent = [], afterNo = -1;
      const draw = () => {
        let out = '\\x1b[2J\\x1b[H' + sent.map((m) => 'SENT: ' + m + '\\r\\n').join('');
        if (asking) {
          out += '╭' + '─'.repeat(68) + '╮\\r\\n' + row('? Shell  mkdir out') + row('Allow execution of [Shell]?') + row('');
          ['Allow once', 'Allow for this session', 'No, suggest changes (esc)'].forEach(
            (o, i) => (out += row((i === 0 ? '●' : ' ') + ' ' + (i + 1) + '. ' + o)),
          );
          out += '╰' + '─'.repeat(68) + '╯';
        } else {
          out += '▄'.repeat(70) + '\\r\\n > ' + (typed || '  Type your message or @path/to/file') + '\\r\\n';
          out += '▀'.repeat(70) + '\\r\\n workspace (/directory)        sandbox        /model';
          if (afterNo >= 0) out += '\\r\\n enters after the No: ' + afterNo;
        }
        process.stdout.write(out);
      };
      process.stdin.setRawMode(true);
      draw();
      process.stdin.on('data', (data) => {
        for (const ch of data.toString()) {
          if (asking) {
            if (ch === '3') { asking = false; afterNo = 0; typed = ${restores} ? sent.at(-1) : ''; }
          } else if (ch === '\\x15') typed = typed.slice(0, typed.lastIndexOf('\\n') + 1);
          else if (ch === '\\x7f') typed = typed.slice(0, -1);
          else if (ch !== '\\r') typed += ch;
          else if (afterNo >= 0 && afterNo++ < ${dropped}) continue;
          else if (typed) { sent.push(typed); asking = typed.startsWith('TOOL'); typed = ''; }
        }
        draw();
      });`;

    /** The confirmation its first message asks, answered with `reply`; the session, once answered. */
    async function answerNo(reply: ReplyAction, { dropped = 0, restores = false } = {}) {
      const program = `exec ${JSON.stringify(process.execPath)} -e ${shellQuote(geminiProgram(dropped, restores))}`;
      const { session, events } = await start(program, { vocabulary: geminiScreens });
      await until(session, 'Type your message');
      await session.sendText('TOOL: make a folder');
      const prompt = await waitFor(
        'the confirmation raised',
        () => events.flatMap((e) => (e.type === 'prompt' ? [e.prompt] : []))[0],
      );
      expect(prompt.kind).toBe('permission');
      // Typed whole (its Enter watched, so none comes later) by the time answer() resolves.
      await session.answer(prompt, reply);
      return session;
    }

    const suggest = { type: 'choice', number: 3, text: 'use mkdir -p instead' } as const;

    it('sends the words as the next message, with Enter once more when the box kept them', async () => {
      const session = await answerNo(suggest, { dropped: 1 });
      await until(session, 'SENT: use mkdir -p instead');
      expect(await screenText(session)).toContain('enters after the No: 2');
    });

    it('types no second Enter when the first one was taken', async () => {
      const session = await answerNo(suggest);
      await until(session, 'SENT: use mkdir -p instead');
      // A key typed now is read after every key of the answer.
      await session.sendKeys('#');
      await until(session, '> #');
      expect(await screenText(session)).toContain('enters after the No: 1');
    });

    it('sends the words alone when the agent put the last message back in its box', async () => {
      const session = await answerNo(suggest, { restores: true });
      await until(session, 'SENT: use mkdir -p instead');
      expect(await screenText(session)).not.toContain('SENT: TOOL: make a folderuse');
    });

    it('sends the next message alone after a plain "No" left the last one in the box', async () => {
      const session = await answerNo({ type: 'choice', number: 3 }, { restores: true });
      await until(session, '> TOOL: make a folder');
      await session.sendText('something else');
      await until(session, 'SENT: something else');
      expect((await screenText(session)).match(/SENT: /g)).toHaveLength(2);
    });

    it("leaves a person's own text in the box as it is", async () => {
      const session = await answerNo({ type: 'choice', number: 3 });
      await session.sendKeys('draft ');
      await until(session, '> draft');
      await session.sendText('more');
      await until(session, 'SENT: draft more');
    });
  });

  it('writes large input completely (chunked)', async () => {
    const { session } = await start('stty raw -echo; head -c 100000 > big.txt; echo DONE; sleep 30');
    await waitFor('raw mode', async () => true);
    await new Promise((r) => setTimeout(r, 200));
    await session.sendKeys('x'.repeat(100_000));
    await until(session, 'DONE');
    expect(statSync(path.join(dir, 'big.txt')).size).toBe(100_000);
  });

  it("keeps a person's keys in order: a key typed right after a large paste never overtakes it", async () => {
    const { session } = await start('stty raw -echo; head -c 100002 > typed.txt; echo DONE; sleep 30');
    await new Promise((r) => setTimeout(r, 200));
    // The paste goes in 4 KB writes, after this turn; the key typed in the same turn waits for it, and the
    // one typed later (nothing queued) goes at once.
    session.userInput('x'.repeat(100_000));
    session.userInput('Y');
    await new Promise((r) => setTimeout(r, 50));
    session.userInput('Z');
    await until(session, 'DONE');
    const typed = readFileSync(path.join(dir, 'typed.txt'), 'utf8');
    expect(typed.length).toBe(100_002);
    expect(typed.slice(-3)).toBe('xYZ');
  });

  it('resizes the terminal the program sees', async () => {
    const { session } = await start('trap "stty size" WINCH; stty size; while true; do sleep 0.05; done');
    await until(session, '24 80');
    session.resize(100, 30);
    await until(session, '30 100');
    expect((await session.snapshot()).cols).toBe(100);
  });

  it('reports the exit code and the signal', async () => {
    const { session } = await start('exit 3');
    expect(await session.exited).toEqual({ exitCode: 3, signal: null });
    const killed = await start('kill -KILL $$');
    expect(await killed.session.exited).toMatchObject({ exitCode: null, signal: 'SIGKILL' });
  });

  it('emits an exit event after all output', async () => {
    const { session, events } = await start('head -c 300000 /dev/zero | tr "\\0" a; exit 0');
    await session.exited;
    const bytes = events.reduce((n, e) => n + (e.type === 'output' ? e.data.length : 0), 0);
    expect(bytes).toBeGreaterThanOrEqual(300_000);
    expect(events.at(-1)?.type).toBe('exit');
  });
});

describe('stopping a session', () => {
  it('leaves no process of the session behind: children, other groups, even setsid daemons', async () => {
    const script = [
      'sleep 1000 &',
      'set -m; sleep 1001 & set +m', // its own process group
      'setsid sleep 1002 &', // its own session
      'echo "PIDS $(jobs -p | tr "\\n" " ")$!"',
      'wait',
    ].join('\n');
    const { session } = await start(script);
    const line = await waitFor('pids', async () => /PIDS ([\d ]+)/.exec(await screenText(session)));
    const pids = line[1]!.trim().split(/\s+/).map(Number);
    expect(pids.length).toBeGreaterThanOrEqual(3);
    const groups = new Set(pids.map((pid) => readProcess(pid)?.pgid));
    expect(groups.size).toBeGreaterThan(1);
    const exit = await session.stop();
    expect(['SIGHUP', 'SIGTERM']).toContain(exit.signal);
    await waitFor('every child gone', () =>
      pids.every((pid) => !processExists(pid) || readProcess(pid)?.state === 'Z'),
    );
    expect(processExists(session.pid)).toBe(false);
  });

  it('kills the children an agent leaves behind when it exits by itself', async () => {
    const { session } = await start('sleep 1000 & echo "CHILD $!"; sleep 0.3; exit 0');
    const line = await waitFor('child pid', async () => /CHILD (\d+)/.exec(await screenText(session)));
    const child = Number(line[1]);
    await session.exited;
    await waitFor('orphan killed', () => !processExists(child) || readProcess(child)?.state === 'Z');
  });

  it('escalates to SIGKILL when SIGTERM is ignored', async () => {
    const { session } = await start('trap "" TERM HUP; echo READY; while true; do sleep 0.05; done', {
      killGraceMs: 300,
    });
    await until(session, 'READY');
    const exit = await session.stop();
    expect(exit.signal).toBe('SIGKILL');
  });

  it('kills a start that prints nothing within the watchdog period and says why', async () => {
    const { session } = await start('exec sleep 1000', { watchdogMs: 300 });
    const exit = await session.exited;
    expect(exit.reason).toMatch(/nothing within 0.3 s of starting \(spawn watchdog\)/);
  });

  it.skipIf(process.platform === 'win32')(
    'lets a quiet command run: no watchdog by default off Windows',
    async () => {
      const { PtyProcess } = await import('../../src/drivers/terminal/pty-process.js');
      const clock = new FakeClock();
      const pty = await PtyProcess.spawn({
        command: 'sleep',
        args: ['1000'],
        cwd: dir,
        env: { PATH: process.env.PATH },
        clock,
      });
      expect(clock.pendingTimers).toBe(0); // nothing armed to end it
      clock.advance(10 * 60_000);
      expect(processExists(pty.pid)).toBe(true);
      const exit = await pty.stop();
      expect(exit.reason).toBeUndefined();
    },
  );
});

describe('start-up questions', () => {
  const rule = { name: 'folder trust', pattern: /Yes, I trust this folder/, answer: '1' };
  const script =
    'printf "Trust?\\n❯ 1. Yes, I trust this folder\\n  2. No, exit\\n"; read -n 1 k; echo "GOT[$k]"; sleep 30';

  it('accepts the folder-trust question when auto-accept is on', async () => {
    const { session } = await start(script, { startupPrompts: [rule], autoAcceptStartup: true });
    await until(session, 'GOT[1]');
  });

  it('leaves it to the user when auto-accept is off', async () => {
    const { session } = await start(script, { startupPrompts: [rule], autoAcceptStartup: false });
    await until(session, 'No, exit');
    await new Promise((r) => setTimeout(r, 600));
    expect(await screenText(session)).not.toContain('GOT[');
  });
});

describe('output fidelity', () => {
  it('loses nothing at exit, run after run, even while the reader is paused (node-pty#72)', async () => {
    const { PtyProcess } = await import('../../src/drivers/terminal/pty-process.js');
    for (let run = 0; run < 12; run++) {
      const pty = await PtyProcess.spawn({
        command: '/bin/sh',
        args: ['-c', 'head -c 300000 /dev/zero | tr "\\0" a'],
        cwd: dir,
        env: { PATH: process.env.PATH },
      });
      let bytes = 0;
      pty.onData((chunk) => {
        bytes += chunk.length;
        // A slow consumer: pause now and then, as a busy terminal would.
        if (run % 2 === 1 && bytes % 3 === 0) {
          pty.pause();
          setTimeout(() => pty.resume(), 5);
        }
      });
      await pty.exited;
      expect(bytes, `run ${run}`).toBe(300_000);
    }
  });

  it('delivers every byte, in order, including at exit', async () => {
    const file = path.join(dir, 'expected.txt');
    const { session, events } = await start(`seq 1 50000 | tee ${file}; exit 0`);
    await session.exited;
    const received = Buffer.concat(events.flatMap((e) => (e.type === 'output' ? [Buffer.from(e.data)] : [])))
      .toString('utf8')
      .replace(/\r\n/g, '\n');
    expect(received).toBe(readFileSync(file, 'utf8'));
  });
});

describe('full-screen programs at rest', () => {
  // Short silence so the test need not wait 2 s: a guess would come within it.
  const detecting = { vocabulary: genericScreens, stallMs: 300 };
  const prompts = (events: AgentEvent[]) => events.filter((e) => e.type === 'prompt');

  it.each([
    ['vim', 'vim -u NONE -N -n notes.txt', /^~/m],
    ['less, mid-file', 'seq 1 500 > long.txt; less long.txt', /^(?:long\.txt|:)/m],
    ['less, at its end', 'seq 1 3 > short.txt; less short.txt', /\(END\)/],
  ])('%s raises no prompt, however long it waits for keys', async (_name, script, drawn) => {
    const { session, events } = await start(script, detecting);
    await until(session, drawn);
    await new Promise((resolve) => setTimeout(resolve, 1_200)); // past the tty-read probe and the silence
    expect(prompts(events)).toEqual([]);
  });

  it('the same wait at an ordinary question does raise one (the check above can fail)', async () => {
    const { session, events } = await start('printf "Deploy to which region: "; read region', detecting);
    await until(session, 'Deploy to which region:');
    await waitFor('a prompt', () => prompts(events).length > 0);
  });
});

describe('a dialog drawn in parts', () => {
  it('is one prompt, never said gone, when a busy program clears it and draws it again a while later', async () => {
    // Clears the screen, draws the same question 40 ms later (several settles), five times, then says so.
    const program = `
      const ask = () => process.stdout.write('\\x1b[2J\\x1b[HDeploy now? (y/n) ');
      let left = 5;
      const blank = () => {
        process.stdout.write('\\x1b[2J\\x1b[H');
        setTimeout(() => { ask(); if (--left > 0) setTimeout(blank, 200); else process.stdout.write('\\x1b]0;done\\x07'); }, 40);
      };
      process.stdin.setRawMode(true);
      ask();
      setTimeout(blank, 200);
      setInterval(() => {}, 1000);`;
    const { session, events } = await start(
      `exec ${JSON.stringify(process.execPath)} -e ${shellQuote(program)}`,
      {
        vocabulary: genericScreens,
      },
    );
    await waitFor('the last redraw', async () => (await session.snapshot()).title === 'done');
    await session.screen.nextSettle(1_000);
    const told = events.filter((e) => e.type === 'prompt' || e.type === 'prompt_gone').map((e) => e.type);
    expect(told).toEqual(['prompt']);
  });
});

/** `text` as one word for bash. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

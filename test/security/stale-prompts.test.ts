import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { genericScreens } from '../../src/agents/generic-screens.js';
import { PromptNotShown, TerminalSession } from '../../src/drivers/terminal/terminal-session.js';
import type { DetectedPrompt } from '../../src/core/prompt.js';
import { cli, cliJson } from '../support/cli-under-pty.js';
import { ScriptWorld } from '../support/script-session.js';
import { waitFor } from '../support/wait.js';

// Issue 12, item 10: nothing is typed unless the prompt is still on screen (seed 004, invariant 6); item 11:
// after an answer, the same question asked again is a new prompt, even when the screen looks the same.

let world: ScriptWorld;
let session: TerminalSession | null = null;
afterEach(async () => {
  await session?.stop();
  session = null;
  await world?.close();
});

/** `command` in a terminal session of its own (the generic vocabulary): the first prompt it raises. */
async function firstPromptOf(command: string, args: string[]): Promise<DetectedPrompt> {
  session = await TerminalSession.start({
    command,
    args,
    cwd: process.cwd(),
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'xterm-256color' },
    cols: 80,
    rows: 24,
    clock: systemClock,
    vocabulary: genericScreens,
  });
  let prompt: DetectedPrompt | null = null;
  session.on((event) => {
    if (event.type === 'prompt') prompt ??= event.prompt;
  });
  return waitFor('the prompt', () => prompt);
}

describe('a prompt answered at the terminal', () => {
  it('is closed for everyone; a later answer is refused and types nothing into the program', async () => {
    world = new ScriptWorld();
    const run = world.run(
      'read -p "Continue? (y/n) " a; echo "got [$a]"; read -r b; echo "then [$b]"; sleep 30',
    );
    const prompt = await world.nextPrompt();
    await run.type('n');
    await run.waitForText('got [n]');
    await waitFor(
      'the prompt closed',
      async () => (await cliJson<unknown[]>(['approvals'], world.env)).length === 0,
    );
    const late = await cli(['approvals', 'answer', prompt.id, 'y'], world.env);
    expect(late.code).toBe(1);
    expect(late.stderr).toMatch(/already resolved by terminal:local/);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await run.screen()).not.toContain('then [y]');
  });
});

describe('an answer whose prompt left the screen', () => {
  it('is never typed: the program that moved on gets nothing', async () => {
    const prompt = await firstPromptOf('bash', [
      '--norc',
      '--noprofile',
      '-c',
      'read -t 1 -p "Continue? (y/n) " a || echo " (timed out)"; read -r b; echo "late [$b]"; sleep 30',
    ]);
    await waitFor('the timeout', async () => (await session!.snapshot()).text.includes('(timed out)'));
    await expect(session!.answer(prompt, { type: 'yes' })).rejects.toBeInstanceOf(PromptNotShown);
    session!.userInput('typed by a person\r');
    await waitFor("the person's line", async () =>
      (await session!.snapshot()).text.includes('late [typed by a person]'),
    );
  });
});

describe('an answer that reads the screen while the dialog is being redrawn', () => {
  it('waits for the screen to settle, sees the dialog, and types into it', async () => {
    // On "r" the program clears its screen and draws the question again 150 ms later (a busy machine's
    // frame in parts): an answer that looks in between must not take the dialog for gone.
    const program = `
      process.stdin.setRawMode(true);
      const ask = () => process.stdout.write('\\x1b[H\\x1b[2JContinue? (y/n) ');
      ask();
      process.stdin.on('data', (data) => {
        const key = data.toString();
        if (key === 'r') { process.stdout.write('\\x1b[H\\x1b[2J'); setTimeout(ask, 150); }
        else process.stdout.write('\\r\\nanswer=' + key + '\\r\\n');
      });`;
    const prompt = await firstPromptOf(process.execPath, ['-e', program]);
    await session!.sendKeys('r');
    await waitFor('the screen cleared', async () => !(await session!.snapshot()).text.includes('Continue?'));
    expect(await session!.answer(prompt, { type: 'yes' })).toBe('y\r');
    await waitFor('the answer', async () => (await session!.snapshot()).text.includes('answer=y'));
  });
});

describe('the same question asked again after an answer', () => {
  it('is a new prompt each time, even when the screen looks exactly the same', async () => {
    world = new ScriptWorld();
    const answers = path.join(world.dir, 'answers.txt');
    world.run(
      `while :; do printf '\\033[H\\033[2J'; read -p "Continue? (y/n) " a; echo "$a" >> "${answers}"; done`,
    );
    const seen: string[] = [];
    for (const answer of ['y', 'n', 'y']) {
      const prompt = await world.nextPrompt(seen);
      seen.push(prompt.id);
      expect((await cli(['approvals', 'answer', prompt.id, answer], world.env)).code).toBe(0);
      await waitFor(`answer ${seen.length} written`, () => {
        try {
          return readFileSync(answers, 'utf8').split('\n').filter(Boolean).length === seen.length;
        } catch {
          return false;
        }
      });
    }
    expect(readFileSync(answers, 'utf8')).toBe('y\nn\ny\n');
  });
});

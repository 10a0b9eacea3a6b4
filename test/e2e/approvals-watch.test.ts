import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auditEntries, CLI, CliUnderPty } from '../support/cli-under-pty.js';
import { endSessionHosts } from '../support/session-hosts.js';
import { endChild, waitFor } from '../support/wait.js';

let dir: string;
let env: Record<string, string>;
let watcher: ChildProcessWithoutNullStreams | null = null;
let output = '';
const runs: CliUnderPty[] = [];

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ab-watch-'));
  env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    AGENT_BRIDGE_HOME: path.join(dir, 'data'),
    USER: 'ada',
  };
  output = '';
});
afterEach(async () => {
  // The inbox and any detached session host write into the data folder until they end: wait for both.
  await endChild(watcher);
  watcher = null;
  await Promise.all(runs.splice(0).map((r) => r.stop()));
  await endSessionHosts(path.join(dir, 'data'));
  rmSync(dir, { recursive: true, force: true });
});

function watch(): ChildProcessWithoutNullStreams {
  const child = spawn(process.execPath, [CLI, 'approvals', '--watch'], { env, cwd: dir });
  child.stdout.on('data', (d) => (output += String(d)));
  watcher = child;
  return child;
}

function runAsking(script: string): CliUnderPty {
  const run = new CliUnderPty(['run', 'custom', '--', 'bash', '--norc', '-c', script], {
    cwd: dir,
    env,
    cols: 100,
    rows: 30,
  });
  runs.push(run);
  return run;
}

describe('agent-bridge approvals --watch: an inbox in a second terminal', () => {
  it('shows each prompt as it appears and answers the newest with a bare answer', async () => {
    const inbox = watch();
    await waitFor('the banner', () => output.includes('Watching for prompts'));
    const run = runAsking('read -p "Deploy to staging? (y/n) " a; echo "got [$a]"; sleep 30');
    await waitFor(
      'the prompt block',
      () =>
        /┌ yes_no · custom .*\n│ Deploy to staging\? \(y\/n\)\n└ answer: [0-9a-f]{4} <y\|n> · default: no/.test(
          output,
        ),
      { timeoutMs: 15_000 },
    );
    inbox.stdin.write('y\n');
    await run.waitForText('got [y]');
    await waitFor('the outcome', () => /✔ [0-9a-f]{8}: yes — by terminal:\w+/.test(output));
    // bash then sleeps: quiet, but not reading its terminal, so nothing more is asked.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(output).not.toMatch(/┌ unknown/);
  });

  it('answers a prompt by its id, with text, and refuses a second answer', async () => {
    const inbox = watch();
    await waitFor('the banner', () => output.includes('Watching for prompts'));
    const run = runAsking('read -p "Commit message: " m; echo "msg [$m]"; sleep 30');
    const id = await waitFor(
      'the prompt id',
      () => /└ answer: ([0-9a-f]{4}) <your answer>/.exec(output)?.[1],
      { timeoutMs: 15_000 },
    );
    inbox.stdin.write(`${id} fix the login bug\n`);
    await run.waitForText('msg [fix the login bug]');
    inbox.stdin.write(`/status\n`);
    await waitFor('status', () => output.includes('1 session(s) running'));
  });

  it('answers a session no agent-bridge controls (run --detach, no serve) by typing the answer itself', async () => {
    const script = 'read -p "Rotate the keys? (y/n) " a; echo "rotated [$a]" > rotated.txt; sleep 30';
    const started = await promisify(execFile)(
      process.execPath,
      [CLI, 'run', '--detach', 'custom', '--', 'bash', '--norc', '-c', script],
      { env, cwd: dir },
    );
    const session = started.stdout.trim();
    const inbox = watch();
    await waitFor('the prompt block', () => output.includes('Rotate the keys? (y/n)'), { timeoutMs: 15_000 });
    inbox.stdin.write('y\n');
    await waitFor('the answer typed', () => existsSync(path.join(dir, 'rotated.txt')), { timeoutMs: 15_000 });
    expect(readFileSync(path.join(dir, 'rotated.txt'), 'utf8')).toBe('rotated [y]\n');
    await waitFor('the outcome', () => /✔ [0-9a-f]{8}: yes — by terminal:\w+/.test(output));
    // It took the session over for as long as that took, and let it go again.
    const detached = async () =>
      (await auditEntries(env))
        .filter((e) => e.event === 'SESSION_DETACHED' && e['session_id'] === session)
        .map((e) => e.reason);
    await waitFor('the session let go', async () => (await detached()).length === 2);
    expect(await detached()).toEqual(['run --detach', 'approvals answer']);
  });

  it('text held while a detached session asks is typed once the answer is, before the session is let go', async () => {
    const script =
      'read -p "Ship it? (y/n) " a; echo "ship [$a]" > ship.txt; read line; echo "[$line]" > next.txt; sleep 30';
    await promisify(execFile)(
      process.execPath,
      [CLI, 'run', '--detach', 'custom', '--', 'bash', '--norc', '-c', script],
      { env, cwd: dir },
    );
    const inbox = watch();
    await waitFor('the prompt block', () => output.includes('Ship it? (y/n)'), { timeoutMs: 15_000 });
    inbox.stdin.write('hello there\n');
    await waitFor('the text held', async () =>
      (await auditEntries(env)).some((e) => e.event === 'TEXT_HELD'),
    );
    inbox.stdin.write('y\n');
    await waitFor('the held text typed', () => existsSync(path.join(dir, 'next.txt')), { timeoutMs: 15_000 });
    expect(readFileSync(path.join(dir, 'ship.txt'), 'utf8')).toBe('ship [y]\n');
    expect(readFileSync(path.join(dir, 'next.txt'), 'utf8')).toBe('[hello there]\n');
  });

  it('lists a prompt by its question, not by the output printed above it', async () => {
    const run = runAsking(
      'printf "compiled module alpha in 3.2 seconds\\ncompiled module beta in 4.1 seconds\\n"; ' +
        'read -p "Deploy to prod? (y/n) " a; echo "got [$a]"; sleep 30',
    );
    await run.waitForText('Deploy to prod?');
    const list = async () =>
      (await promisify(execFile)(process.execPath, [CLI, 'approvals'], { env, cwd: dir })).stdout;
    const row = await waitFor('the prompt listed', async () => (await list()).split('\n')[1], {
      timeoutMs: 15_000,
    });
    expect(row.split('\t')).toEqual([
      expect.stringMatching(/^[0-9a-f]{8}$/),
      'custom',
      'yes_no',
      expect.stringMatching(/^\dm\d\ds$/),
      'Deploy to prod? (y/n)',
      'yes / no',
    ]);
  });
});

// `agent-bridge run shell` as a person uses it: typed into a bash inside tmux, then checked from that
// outer shell afterwards (exit code, terminal mode) and from outside (processes, recordings).
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { assertTmuxInstalled, pollUntil, TmuxSession } from '../support/tmux.js';

const CLI = fileURLToPath(new URL('../../bin/agent-bridge.js', import.meta.url));
/** Bash ignores SIGTERM at its prompt, so agent-bridge needs its 5 s kill grace: allow plenty more. */
const SLOW_EXIT_MS = 20_000;

assertTmuxInstalled();

interface Harness {
  tmux: TmuxSession;
  /** AGENT_BRIDGE_HOME of the run. */
  dataDir: string;
  cwd: string;
}

let root: string | undefined;
let harness: Harness | undefined;

afterEach(async () => {
  await harness?.tmux.kill();
  harness = undefined;
  if (root) await rm(root, { recursive: true, force: true, maxRetries: 5 });
  root = undefined;
});

/** An outer bash (prompt `outer> `) in tmux; the shell agent-bridge starts inside it prompts `inner> `. */
async function startOuterShell(cols = 80, rows = 24): Promise<Harness> {
  root = await mkdtemp(join(tmpdir(), 'agent-bridge-e2e-shell-'));
  const home = join(root, 'home');
  const dataDir = join(root, 'data');
  const cwd = join(root, 'work');
  await Promise.all([mkdir(home), mkdir(cwd)]);
  await writeFile(join(home, '.bashrc'), "PS1='inner> '\n");
  const tmux = await TmuxSession.start({
    command: ['bash', '--norc', '--noprofile'],
    env: {
      HOME: home,
      PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
      SHELL: '/bin/bash',
      PS1: 'outer> ',
      // No history files: nothing writes into the temp folder while it is being removed.
      HISTFILE: '',
      LANG: 'C.UTF-8',
      AGENT_BRIDGE_HOME: dataDir,
    },
    cols,
    rows,
    cwd,
  });
  harness = { tmux, dataDir, cwd };
  await atPrompt(tmux, 'outer');
  return harness;
}

/** The given shell's prompt on the cursor line (a killed inner shell leaves `inner> outer> `). */
function atPrompt(tmux: TmuxSession, shell: 'outer' | 'inner', timeoutMs?: number): Promise<string> {
  return tmux.waitForPrompt(`${shell}>`, { timeoutMs });
}

async function startRun(tmux: TmuxSession, args = 'run shell'): Promise<void> {
  await tmux.typeLine(`node ${CLI} ${args}`);
  await atPrompt(tmux, 'inner');
}

/** The outer terminal's mode, read from outside the pane (stty on its tty). */
async function paneTtyMode(tmux: TmuxSession): Promise<string> {
  const tty = await tmux.display('#{pane_tty}');
  const result = spawnSync('sh', ['-c', 'stty -g < "$1"', 'sh', tty], { encoding: 'utf8' });
  return result.stdout.trim();
}

interface ProcessInfo {
  pid: number;
  ppid: number;
  sid: number;
  state: string;
  command: string;
}

function processes(): ProcessInfo[] {
  const out = spawnSync('ps', ['-e', '-o', 'pid=,ppid=,sid=,stat=,comm='], { encoding: 'utf8' }).stdout;
  return (
    out
      .split('\n')
      .map((line) => line.trim().split(/\s+/))
      .filter((fields) => fields.length >= 5)
      .map(([pid, ppid, sid, state, command]) => ({
        pid: Number(pid),
        ppid: Number(ppid),
        sid: Number(sid),
        state: state as string,
        command: command as string,
      }))
      // A zombie has exited; only its parent's wait() is missing.
      .filter((p) => !p.state.startsWith('Z'))
  );
}

const alive = (pid: number): boolean => processes().some((p) => p.pid === pid);

describe('agent-bridge run shell, typed into a real terminal (tmux)', () => {
  it('runs commands and hands the exit code back to the outer shell', async () => {
    const { tmux } = await startOuterShell();
    await startRun(tmux);
    await tmux.typeLine('echo $((6*7))');
    await tmux.waitFor(/^42$/m, { description: 'the output 42' });
    await tmux.typeLine('exit 7');
    await atPrompt(tmux, 'outer');
    expect(await tmux.shellValue('$?')).toBe('7');
  });

  it('says once what it started (session, recording, where to answer); --quiet says nothing', async () => {
    const { tmux, dataDir, cwd } = await startOuterShell(160, 24);
    await startRun(tmux);
    const [, session, recording] = await tmux.waitForMatch(
      /^agent-bridge: shell in (?:.+) · session ([0-9a-f]{8}) · recording (\S+\.cast)$/m,
    );
    expect(recording!.startsWith(dataDir)).toBe(true);
    expect(recording).toContain(session);
    const screen = await tmux.capture();
    expect(screen).toContain(`agent-bridge: shell in ${cwd} · session`);
    expect(screen).toMatch(/^agent-bridge: answer its prompts here or from agent-bridge approvals --watch/m);
    await tmux.typeLine('exit');
    await atPrompt(tmux, 'outer');

    await tmux.typeLine('clear');
    await atPrompt(tmux, 'outer');
    await startRun(tmux, 'run --quiet shell');
    await tmux.typeLine('exit');
    await atPrompt(tmux, 'outer');
    expect(await tmux.capture()).not.toContain('agent-bridge:');
  });

  it('puts the outer terminal in raw mode while running and restores it after a normal exit', async () => {
    const { tmux } = await startOuterShell();
    const before = await tmux.shellValue('$(stty -g)');
    await startRun(tmux);
    // Raw mode while the agent runs: agent-bridge really changed the mode it has to restore.
    expect(await paneTtyMode(tmux)).not.toBe(before);
    await tmux.typeLine('exit');
    await atPrompt(tmux, 'outer');
    expect(await tmux.shellValue('$?')).toBe('0');
    expect(await tmux.shellValue('$(stty -g)')).toBe(before);
  });

  it('restores the terminal when the agent is killed with SIGKILL from outside', async () => {
    const { tmux } = await startOuterShell();
    const before = await tmux.shellValue('$(stty -g)');
    await startRun(tmux);
    const innerPid = Number(await tmux.shellValue('$$', '\\d+'));
    process.kill(innerPid, 'SIGKILL');
    await atPrompt(tmux, 'outer');
    expect(await tmux.shellValue('$?')).toBe('137');
    expect(await tmux.shellValue('$(stty -g)')).toBe(before);
  });

  it('on SIGTERM exits 143, ends every process of the session and restores the terminal', async () => {
    const { tmux } = await startOuterShell();
    const before = await tmux.shellValue('$(stty -g)');
    await startRun(tmux);
    const innerPid = Number(await tmux.shellValue('$$', '\\d+'));
    await tmux.typeLine('sleep 300 &');
    const backgroundPid = Number(await tmux.shellValue('$!', '\\d+'));
    const bridgePid = processes().find((p) => p.pid === innerPid)?.ppid;
    expect(bridgePid).toBeDefined();
    expect(processes().find((p) => p.pid === bridgePid)?.command).toMatch(/node/);
    process.kill(bridgePid as number, 'SIGTERM');
    await atPrompt(tmux, 'outer', SLOW_EXIT_MS);
    expect(await tmux.shellValue('$?')).toBe('143');
    expect(await tmux.shellValue('$(stty -g)')).toBe(before);
    await pollUntil(
      () => !processes().some((p) => p.sid === innerPid || [innerPid, backgroundPid].includes(p.pid)),
      'every process of the session to end',
    );
    expect(alive(bridgePid as number)).toBe(false);
  });

  it('passes the terminal size through, and every resize', async () => {
    const { tmux } = await startOuterShell(80, 24);
    const pane = await tmux.paneSize();
    expect(pane).toEqual({ cols: 80, rows: 24 });
    await startRun(tmux);
    expect(await tmux.shellValue('$(stty size)')).toBe(`${pane.rows} ${pane.cols}`);
    expect(await tmux.shellValue('$(tput cols)x$(tput lines)')).toBe(`${pane.cols}x${pane.rows}`);
    await tmux.resize(100, 30);
    expect(await tmux.paneSize()).toEqual({ cols: 100, rows: 30 });
    await innerSeesSize(tmux, '30 100');
    await tmux.typeLine('exit');
    await atPrompt(tmux, 'outer');
  });

  it('Ctrl-C interrupts the running command and the session goes on', async () => {
    const { tmux } = await startOuterShell();
    await startRun(tmux);
    const innerPid = Number(await tmux.shellValue('$$', '\\d+'));
    await tmux.typeLine('sleep 100');
    await pollUntil(
      () => processes().some((p) => p.ppid === innerPid && p.command === 'sleep'),
      'sleep to start',
    );
    await tmux.press('C-c');
    await atPrompt(tmux, 'inner');
    await pollUntil(
      () => !processes().some((p) => p.ppid === innerPid && p.command === 'sleep'),
      'sleep to end',
    );
    expect(await tmux.shellValue('$?')).toBe('130');
    expect(alive(innerPid)).toBe(true);
    await tmux.typeLine('echo "after-$((2+3))"');
    await tmux.waitFor(/^after-5$/m);
    await tmux.typeLine('exit');
    await atPrompt(tmux, 'outer');
    expect(await tmux.shellValue('$?')).toBe('0');
  });

  it('records the session as asciicast v2, with output and resize events', async () => {
    const { tmux, dataDir } = await startOuterShell(80, 24);
    await startRun(tmux);
    await tmux.typeLine('echo $((6*7))');
    await tmux.waitFor(/^42$/m);
    await tmux.resize(100, 30);
    await innerSeesSize(tmux, '30 100');
    await tmux.typeLine('exit');
    await atPrompt(tmux, 'outer');

    const listed = spawnSync(process.execPath, [CLI, 'recordings', '--json'], {
      encoding: 'utf8',
      env: { ...process.env, AGENT_BRIDGE_HOME: dataDir },
    });
    expect(listed.status).toBe(0);
    const recordings = JSON.parse(listed.stdout) as { file: string; width: number; height: number }[];
    expect(recordings).toHaveLength(1);
    const file = (recordings[0] as { file: string }).file;
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    const [headerLine, ...eventLines] = (await readFile(file, 'utf8')).trimEnd().split('\n');
    const header = JSON.parse(headerLine as string) as Record<string, unknown>;
    expect(header).toMatchObject({ version: 2, width: 80, height: 24 });
    const events = eventLines.map((line) => JSON.parse(line) as [number, string, string]);
    for (const [time, kind, data] of events) {
      expect(typeof time).toBe('number');
      expect(['o', 'r']).toContain(kind);
      expect(typeof data).toBe('string');
    }
    const output = events.filter(([, kind]) => kind === 'o').map(([, , data]) => data);
    expect(output.join('')).toMatch(/[\r\n]42\r\n/);
    expect(events.filter(([, kind]) => kind === 'r').map(([, , data]) => data)).toContain('100x30');
  });
});

/**
 * After a resize, asks the inner shell for its size until it shows `expected`: the SIGWINCH reaches
 * agent-bridge asynchronously, so a command typed at once may run before the resize is passed on.
 */
async function innerSeesSize(tmux: TmuxSession, expected: string): Promise<void> {
  let last = '';
  await pollUntil(async () => {
    last = await tmux.shellValue('$(stty size)');
    return last === expected;
  }, `the inner shell to see size ${expected}`).catch((error: unknown) => {
    throw new Error(`${(error as Error).message}; last size seen: ${last}`);
  });
}

describe('agent-bridge run, bad usage', () => {
  function cli(...args: string[]) {
    root = mkdtempSync(join(tmpdir(), 'agent-bridge-e2e-usage-'));
    return spawnSync(process.execPath, [CLI, ...args], {
      encoding: 'utf8',
      input: '',
      env: { ...process.env, AGENT_BRIDGE_HOME: root },
    });
  }
  const lines = (text: string) => text.trimEnd().split('\n');

  it('an unknown agent: one line naming the known agents, exit 2', () => {
    const result = cli('run', 'nosuchagent');
    expect(result.status).toBe(2);
    expect(lines(result.stderr)).toHaveLength(1);
    expect(result.stderr).toMatch(/nosuchagent/);
    for (const agent of ['claude', 'codex', 'shell', 'custom']) expect(result.stderr).toContain(agent);
  });

  it('input from a pipe reaches the agent, and so does its end: the agent reads end-of-file and run exits', () => {
    const whole = spawnSync(process.execPath, [CLI, 'run', '-q', '--no-record', 'custom', '--', 'wc', '-l'], {
      encoding: 'utf8',
      input: 'one\ntwo\nthree\n',
      env: { ...process.env, AGENT_BRIDGE_HOME: mkdtempSync(join(tmpdir(), 'agent-bridge-e2e-eof-')) },
      timeout: 30_000,
    });
    expect(whole.status).toBe(0);
    expect(whole.stdout).toMatch(/^\s*3\s*$/m);
    // An unfinished last line still reaches it, whole.
    const partial = spawnSync(process.execPath, [CLI, 'run', '-q', '--no-record', 'custom', '--', 'cat'], {
      encoding: 'utf8',
      input: 'no newline at the end',
      env: { ...process.env, AGENT_BRIDGE_HOME: mkdtempSync(join(tmpdir(), 'agent-bridge-e2e-eof-')) },
      timeout: 30_000,
    });
    expect(partial.status).toBe(0);
    expect(partial.stdout).toContain('no newline at the end');
  });

  it('no input (stdin /dev/null, as under nohup or a service) is not an end-of-file: the agent waits for input', () => {
    // bash's read says 1 at end-of-file, more than 128 when its timeout passes with nothing read.
    const result = spawnSync(
      process.execPath,
      [
        CLI,
        'run',
        '-q',
        '--no-record',
        'custom',
        '--',
        'bash',
        '--norc',
        '-c',
        'read -t 1 a; echo "read said $?"',
      ],
      {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, AGENT_BRIDGE_HOME: mkdtempSync(join(tmpdir(), 'agent-bridge-e2e-eof-')) },
        timeout: 30_000,
      },
    );
    expect(result.stdout).toMatch(/read said (\d+)/);
    expect(Number(/read said (\d+)/.exec(result.stdout)![1])).toBeGreaterThan(128);
  });

  it('an unknown option: exit 2', () => {
    const result = cli('run', 'claude', '--bogus');
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/--bogus/);
  });

  it('a custom command that does not exist: one line, exit 2', () => {
    const result = cli('run', 'custom', '--', '/no/such/cmd');
    expect(result.status).toBe(2);
    expect(lines(result.stderr)).toHaveLength(1);
    expect(result.stderr).toContain('/no/such/cmd');
  });
});

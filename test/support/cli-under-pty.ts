import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pty from 'node-pty';
import xtermHeadless from '@xterm/headless';
import { waitFor } from './wait.js';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CLI = path.join(REPO_ROOT, 'bin', 'agent-bridge.js');
const execFileAsync = promisify(execFile);

/** `agent-bridge <args>` in a real PTY, with a rendered screen to wait on: a person at a terminal. */
export class CliUnderPty {
  readonly process: pty.IPty;
  private readonly terminal: InstanceType<typeof xtermHeadless.Terminal>;
  exit: { exitCode: number; signal?: number } | null = null;
  /** Everything it printed, including what scrolled off the screen. */
  private printed = '';

  constructor(
    args: string[],
    options: { cwd: string; env: Record<string, string>; cols?: number; rows?: number },
  ) {
    const cols = options.cols ?? 120;
    const rows = options.rows ?? 40;
    this.terminal = new xtermHeadless.Terminal({ cols, rows, allowProposedApi: true, scrollback: 0 });
    this.process = pty.spawn(process.execPath, [CLI, ...args], {
      cwd: options.cwd,
      env: options.env,
      cols,
      rows,
    });
    this.process.onData((data) => {
      this.printed += data;
      this.terminal.write(data);
    });
    this.process.onExit((exit) => (this.exit = exit));
  }

  screen(): Promise<string> {
    return new Promise((resolve) =>
      this.terminal.write('', () => {
        const buffer = this.terminal.buffer.active;
        const lines: string[] = [];
        for (let i = 0; i < this.terminal.rows; i++)
          lines.push(buffer.getLine(buffer.viewportY + i)?.translateToString(true) ?? '');
        resolve(lines.join('\n'));
      }),
    );
  }

  /** All it printed so far, escape sequences included (what a scrolling terminal showed at some point). */
  transcript(): string {
    return this.printed;
  }

  async waitForText(text: string | RegExp, timeoutMs = 30_000): Promise<void> {
    await waitFor(
      `screen to show ${String(text)}`,
      async () => {
        const screen = await this.screen();
        return typeof text === 'string' ? screen.includes(text) : text.test(screen);
      },
      { timeoutMs },
    );
  }

  /** Types text, then Enter as a separate write (as a person would; Claude needs the pause). */
  async type(text: string): Promise<void> {
    this.process.write(text);
    await new Promise((resolve) => setTimeout(resolve, 80));
    this.process.write('\r');
  }

  waitForExit(timeoutMs = 20_000) {
    return waitFor('exit', () => this.exit, { timeoutMs });
  }

  /** Ends agent-bridge as a person would (SIGTERM: it stops its agent), then by force if it must. */
  async stop(): Promise<void> {
    if (this.exit) return;
    this.process.kill('SIGTERM');
    try {
      await this.waitForExit(10_000);
    } catch {
      this.process.kill('SIGKILL');
    }
  }
}

/** Runs `agent-bridge <args>` to completion (another terminal of the same user). */
export async function cli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [CLI, ...args], { env, cwd: REPO_ROOT });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** One audit-log entry as `agent-bridge logs --json` prints it. */
export interface AuditEntry {
  event: string;
  seq: number;
  prompt_id?: string;
  reason?: string;
  decided_by?: string;
  [field: string]: unknown;
}

/** The audit log of the data folder `env` names, as `agent-bridge logs --json` prints it: one entry a line. */
export async function auditEntries(env: Record<string, string>, lines = 500): Promise<AuditEntry[]> {
  const result = await cli(['logs', '-n', String(lines), '--json'], env);
  if (result.code !== 0) throw new Error(`agent-bridge logs failed: ${result.stderr}`);
  return result.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as AuditEntry);
}

export async function cliJson<T>(args: string[], env: Record<string, string>): Promise<T> {
  const result = await cli([...args, '--json'], env);
  if (result.code !== 0) throw new Error(`agent-bridge ${args.join(' ')} failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

/** The environment of an agent-bridge command in a test: a home and a data folder of its own under `dir`. */
export function cliEnv(dir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    AGENT_BRIDGE_HOME: path.join(dir, 'data'),
    TERM: 'xterm-256color',
    ...extra,
  };
}

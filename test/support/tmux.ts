// Drives programs through a real terminal emulator: an isolated tmux server per session (own socket, no
// config), a detached window of a given size, keys in, screen text out, polled waits with deadlines.
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';

const TMUX = process.env.AGENT_BRIDGE_TEST_TMUX ?? 'tmux';
const POLL_MS = 50;
/** Default deadline of waitFor; generous, since a loaded CI machine can be slow. */
export const DEFAULT_WAIT_MS = 15_000;

export interface TmuxStartOptions {
  /** The program and its arguments, run directly (no shell in between). */
  command: string[];
  /** The complete environment of the program: nothing of the test process leaks in. */
  env: Record<string, string>;
  cols?: number;
  rows?: number;
  cwd?: string;
}

export interface CaptureOptions {
  /** Keep colour and attribute escapes (capture-pane -e). */
  escapes?: boolean;
  /** Join lines the terminal wrapped (capture-pane -J); on by default. */
  join?: boolean;
  /** Include the scrollback, not only the visible screen. */
  history?: boolean;
}

export interface WaitOptions extends CaptureOptions {
  timeoutMs?: number;
  /** Named in the error when the deadline passes. */
  description?: string;
}

export type ScreenCondition = string | RegExp | ((screen: string) => boolean);

export class TmuxTimeoutError extends Error {
  override name = 'TmuxTimeoutError';
}

function run(args: string[]): Promise<string> {
  const env = { ...process.env };
  // Never talk to (or nest inside) a tmux the tests themselves may run in.
  delete env.TMUX;
  delete env.TMUX_PANE;
  return new Promise((resolve, reject) => {
    execFile(TMUX, args, { env, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error) reject(new Error(`tmux ${args.join(' ')}: ${stderr.trim() || error.message}`));
      else resolve(stdout);
    });
  });
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 50 ms until it returns true; throws naming `what` at the deadline. */
export async function pollUntil(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = DEFAULT_WAIT_MS,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new TmuxTimeoutError(`timed out waiting for ${what}`);
    await sleep(POLL_MS);
  }
}

function matches(condition: ScreenCondition, screen: string): boolean {
  if (typeof condition === 'string') return screen.includes(condition);
  if (condition instanceof RegExp) return condition.test(screen);
  return condition(screen);
}

/** Whether pid is a live process; a zombie (exited, not yet reaped) counts as gone. */
export function processAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && existsSync('/proc/self/stat')) return false;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Every process below pid (children, grandchildren, ...), from one `ps` listing. */
export function descendantsOf(pid: number): number[] {
  const listing = execFileSync('ps', ['-A', '-o', 'pid=,ppid='], { encoding: 'utf8' });
  const children = new Map<number, number[]>();
  for (const line of listing.split('\n')) {
    const [child, parent] = line.trim().split(/\s+/).map(Number);
    if (!child || parent === undefined) continue;
    children.set(parent, [...(children.get(parent) ?? []), child]);
  }
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift() as number) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}

/** The last line with something on it: where a shell's prompt is while it waits. */
export function lastNonEmptyLine(screen: string): string {
  const lines = screen.split('\n').map((line) => line.trimEnd());
  for (let i = lines.length - 1; i >= 0; i--) if (lines[i]) return lines[i] as string;
  return '';
}

/** Throws a clear error when tmux is missing, rather than letting every test fail obscurely. */
export function assertTmuxInstalled(): void {
  try {
    execFileSync(TMUX, ['-V'], { stdio: 'ignore' });
  } catch {
    throw new Error(`tmux not found (${TMUX}): install tmux to run the end-to-end tests`);
  }
}

/** One tmux server with one session and one pane, driven like a person at a terminal. */
export class TmuxSession {
  private killed = false;
  private markers = 0;

  private constructor(
    readonly socket: string,
    readonly target: string,
  ) {}

  static async start(options: TmuxStartOptions): Promise<TmuxSession> {
    const socket = `ab-e2e-${process.pid}-${randomBytes(4).toString('hex')}`;
    const session = new TmuxSession(socket, 'main');
    const env = { TERM: 'screen-256color', ...options.env };
    const envArgs = Object.entries(env).map(([key, value]) => `${key}=${value}`);
    const args = ['new-session', '-d', '-s', session.target];
    args.push('-x', String(options.cols ?? 80), '-y', String(options.rows ?? 24));
    if (options.cwd) args.push('-c', options.cwd);
    // env -i: the pane gets exactly `env`, not the tmux server's environment (nor TMUX, TMUX_PANE).
    args.push('env', '-i', ...envArgs, ...options.command);
    await session.tmux(args);
    return session;
  }

  /** Runs a tmux command against this server (`-L socket -f /dev/null`). */
  tmux(args: string[]): Promise<string> {
    return run(['-L', this.socket, '-f', '/dev/null', ...args]);
  }

  /** Types text literally (send-keys -l): no key names, no Enter. */
  async type(text: string): Promise<void> {
    // tmux reads an argument ending in ';' as a command separator; '\;' is a literal one.
    const literal = text.endsWith(';') ? `${text.slice(0, -1)}\\;` : text;
    await this.tmux(['send-keys', '-t', this.target, '-l', '--', literal]);
  }

  /** Presses named keys: Enter, C-c, Escape, Up, ... */
  async press(...keys: string[]): Promise<void> {
    await this.tmux(['send-keys', '-t', this.target, ...keys]);
  }

  /** Types a line, then presses Enter as a separate key. */
  async typeLine(text: string): Promise<void> {
    await this.type(text);
    await this.press('Enter');
  }

  async capture(options: CaptureOptions = {}): Promise<string> {
    const args = ['capture-pane', '-p', '-t', this.target];
    if (options.escapes) args.push('-e');
    if (options.join !== false) args.push('-J');
    if (options.history) args.push('-S', '-');
    return this.tmux(args);
  }

  /** Polls the screen every 50 ms until the condition holds; returns that screen, or throws at the deadline. */
  async waitFor(condition: ScreenCondition, options: WaitOptions = {}): Promise<string> {
    const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_WAIT_MS);
    let screen = '';
    for (;;) {
      screen = await this.capture(options);
      if (matches(condition, screen)) return screen;
      if (Date.now() > deadline) break;
      await sleep(POLL_MS);
    }
    const what = options.description ?? String(condition);
    throw new TmuxTimeoutError(`timed out waiting for ${what}; the screen was:\n${screen}`);
  }

  /** Waits for a regular expression and returns its match (for values printed on screen). */
  async waitForMatch(pattern: RegExp, options: WaitOptions = {}): Promise<RegExpExecArray> {
    const screen = await this.waitFor(pattern, options);
    return pattern.exec(screen) as RegExpExecArray;
  }

  /**
   * For a shell at its prompt: types `echo "V<n>=<expression>=END"` and returns the value printed. The typed
   * line holds the expression itself ('$' and all), so only the printed line matches `value`.
   */
  async shellValue(expression: string, value = '[^=$\\n]*', options: WaitOptions = {}): Promise<string> {
    const name = `V${++this.markers}`;
    await this.typeLine(`echo "${name}=${expression}=END"`);
    const match = await this.waitForMatch(new RegExp(`${name}=(${value})=END`), {
      description: `the value of ${expression}`,
      ...options,
    });
    return match[1] as string;
  }

  /** Waits until the cursor line ends with `prompt` (trailing spaces ignored): a shell waiting for input. */
  waitForPrompt(prompt: string, options: WaitOptions = {}): Promise<string> {
    return this.waitFor((screen) => lastNonEmptyLine(screen).endsWith(prompt.trimEnd()), {
      description: `the prompt ${JSON.stringify(prompt)}`,
      ...options,
    });
  }

  async resize(cols: number, rows: number): Promise<void> {
    await this.tmux(['resize-window', '-t', this.target, '-x', String(cols), '-y', String(rows)]);
  }

  async paneSize(): Promise<{ cols: number; rows: number }> {
    const out = await this.display('#{pane_width} #{pane_height}');
    const [cols, rows] = out.split(' ').map(Number);
    return { cols: cols ?? 0, rows: rows ?? 0 };
  }

  /** The pid of the program the pane runs. */
  async panePid(): Promise<number> {
    return Number(await this.display('#{pane_pid}'));
  }

  /** Expands a tmux format for the pane, e.g. '#{pane_tty}' (display-message -p). */
  async display(format: string): Promise<string> {
    return (await this.tmux(['display-message', '-p', '-t', this.target, format])).trim();
  }

  /**
   * Ends the server (its panes get SIGHUP) and waits for the pane's program and everything it started to
   * exit, killing what is left after a few seconds, so no process outlives the test or writes into
   * folders being removed. Safe to call twice.
   */
  async kill(): Promise<void> {
    if (this.killed) return;
    this.killed = true;
    const pid = await this.panePid().catch(() => 0);
    const socketPath = await this.display('#{socket_path}').catch(() => '');
    const tree = pid > 0 ? [pid, ...descendantsOf(pid)] : [];
    await this.tmux(['kill-server']).catch(() => {});
    // tmux 3.3 leaves the socket file behind.
    if (socketPath) await rm(socketPath, { force: true });
    const allGone = () => tree.every((member) => !processAlive(member));
    await pollUntil(allGone, 'the pane processes to exit', 3_000).catch(() => {
      for (const member of tree) if (processAlive(member)) signal(member, 'SIGKILL');
    });
    await pollUntil(allGone, 'the pane processes to die', 3_000).catch(() => {});
  }
}

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { systemClock, type Clock } from '../../core/clock.js';
import type { ExitInfo } from '../../core/events.js';
import { isFolder, ProcessFamily } from '../terminal/process-tree.js';

/** Stop: SIGTERM to the agent's whole process group, SIGKILL to what is left after this long (seed 003). */
export const KILL_GRACE_MS = 5_000;
/** What the agent last wrote to stderr, kept to explain why it failed. */
const STDERR_TAIL_CHARS = 2_000;

export interface AgentProcessOptions {
  command: string;
  args: string[];
  cwd: string;
  /** The complete environment of the child. */
  env: NodeJS.ProcessEnv;
  clock?: Clock;
  killGraceMs?: number;
}

export class AgentSpawnError extends Error {
  override name = 'AgentSpawnError';
}

/**
 * An agent speaking a protocol over its stdin/stdout pipes, in a session and process group of its own
 * (`detached`), so stop() ends it and everything it started, never more.
 */
export class AgentProcess {
  readonly exited: Promise<ExitInfo>;
  private readonly clock: Clock;
  private exitInfo: ExitInfo | null = null;
  private stderrTail = '';
  private readonly family: ProcessFamily;

  private constructor(
    readonly child: ChildProcessWithoutNullStreams,
    private readonly options: AgentProcessOptions,
  ) {
    this.clock = options.clock ?? systemClock;
    this.family = new ProcessFamily(child.pid!);
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exitInfo = { exitCode: signal ? null : code, signal };
        this.family.killLeftovers();
        resolve(this.exitInfo);
      });
    });
    child.stderr.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
    });
    // A child that dies mid-write must not take agent-bridge with it (EPIPE).
    child.stdin.on('error', () => undefined);
  }

  static async spawn(options: AgentProcessOptions): Promise<AgentProcess> {
    assertDirectory(options.cwd);
    const child = spawn(options.command, options.args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (error) =>
        reject(new AgentSpawnError(`cannot start ${options.command}: ${error.message}`)),
      );
    });
    return new AgentProcess(child, options);
  }

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return this.exitInfo === null;
  }

  /** The end of what the agent wrote to stderr, for error messages. */
  get stderr(): string {
    return this.stderrTail.trim();
  }

  async stop(): Promise<ExitInfo> {
    if (this.running) {
      this.child.stdin.end();
      this.family.signal('SIGTERM');
      const grace = this.clock.after(this.options.killGraceMs ?? KILL_GRACE_MS, () =>
        this.family.signal('SIGKILL'),
      );
      await this.exited;
      grace.cancel();
    }
    this.family.killLeftovers();
    return this.exited;
  }
}

function assertDirectory(cwd: string): void {
  if (!isFolder(cwd)) throw new AgentSpawnError(`working directory ${cwd} does not exist or is not a folder`);
}

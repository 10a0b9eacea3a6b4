import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CLI, cliJson, CliUnderPty } from './cli-under-pty.js';
import { endSessionHosts } from './session-hosts.js';
import { endChild, waitFor } from './wait.js';

/** A prompt as `agent-bridge approvals --json` lists it. */
export interface ListedPrompt {
  id: string;
  session: string;
  kind: string;
  status: string;
  excerpt: string;
  detail: string;
  choices: Array<{ number: number; label: string }>;
}

/**
 * A throwaway agent-bridge home with `run custom -- bash -c <script>` sessions in real PTYs, an inbox
 * (`approvals --watch`) and the CLI of another terminal: what a person does across their own terminals.
 */
export class ScriptWorld {
  readonly dir = mkdtempSync(path.join(tmpdir(), 'ab-script-'));
  readonly env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: this.dir,
    AGENT_BRIDGE_HOME: path.join(this.dir, 'data'),
    TERM: 'xterm-256color',
    USER: 'ada',
  };
  private readonly runs: CliUnderPty[] = [];
  private readonly inboxes: ChildProcessWithoutNullStreams[] = [];

  run(script: string, options: { cols?: number; rows?: number } = {}): CliUnderPty {
    const run = new CliUnderPty(['run', 'custom', '--', 'bash', '--norc', '--noprofile', '-c', script], {
      cwd: this.dir,
      env: this.env,
      cols: options.cols ?? 100,
      rows: options.rows ?? 30,
    });
    this.runs.push(run);
    return run;
  }

  /** `agent-bridge approvals --watch`, with what it printed so far. */
  inbox(): { child: ChildProcessWithoutNullStreams; output: () => string; say(line: string): void } {
    const child = spawn(process.execPath, [CLI, 'approvals', '--watch'], { env: this.env, cwd: this.dir });
    let output = '';
    child.stdout.on('data', (d) => (output += String(d)));
    child.stderr.on('data', (d) => (output += String(d)));
    this.inboxes.push(child);
    return { child, output: () => output, say: (line) => child.stdin.write(line + '\n') };
  }

  /** The first waiting prompt not in `seen`. */
  nextPrompt(seen: string[] = [], timeoutMs = 20_000): Promise<ListedPrompt> {
    return waitFor(
      'a waiting prompt',
      async () => (await cliJson<ListedPrompt[]>(['approvals'], this.env)).find((p) => !seen.includes(p.id)),
      { timeoutMs },
    );
  }

  async close(): Promise<void> {
    await Promise.all(this.inboxes.splice(0).map((inbox) => endChild(inbox)));
    await Promise.all(this.runs.splice(0).map((run) => run.stop()));
    await endSessionHosts(this.env.AGENT_BRIDGE_HOME!);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * Every byte agent-bridge keeps under its home: the database (and its WAL), the audit log, and recordings
 * unless `recordings` is false (they are the raw terminal, private to the user, never redacted).
 */
export function everythingStored(home: string, options: { recordings?: boolean } = {}): string {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'recordings' || options.recordings !== false) walk(full);
      } else files.push(full);
    }
  };
  walk(home);
  return files.map((file) => readFileSync(file).toString('latin1')).join('\n');
}

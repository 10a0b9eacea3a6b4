import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { CLI } from './cli-under-pty.js';
import { waitFor } from './wait.js';

/** `agent-bridge serve` as a background process: its printed web URL (with the token) and a clean stop. */
export class ServeProcess {
  readonly child: ChildProcessWithoutNullStreams;
  stderr = '';

  constructor(args: string[], options: { cwd: string; env: Record<string, string> }) {
    this.child = spawn(process.execPath, [CLI, 'serve', '--no-terminal', '--port', '0', ...args], {
      cwd: options.cwd,
      env: options.env,
    });
    this.child.stderr.on('data', (d) => (this.stderr += String(d)));
    this.child.stdout.resume();
  }

  /** The URL serve printed, token included. */
  url(): Promise<string> {
    return waitFor(
      'the web URL',
      () => /open (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/.exec(this.stderr)?.[1],
      { timeoutMs: 20_000 },
    );
  }

  async stop(): Promise<number | null> {
    if (this.child.exitCode !== null) return this.child.exitCode;
    const exited = new Promise<number | null>((resolve) => this.child.once('exit', (code) => resolve(code)));
    this.child.kill('SIGTERM');
    return exited;
  }
}

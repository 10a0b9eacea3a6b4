import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { auditEntries, type AuditEntry } from './cli-under-pty.js';
import { ServeProcess } from './serve-process.js';
import { endChild, waitFor } from './wait.js';

/**
 * One machine of a cluster test: a data folder of its own (its store, log and config) and `agent-bridge serve`
 * as a separate process, which the test may stop, kill (-9) and start again.
 */
export class ServeMachine {
  serve: ServeProcess | null = null;
  readonly dataDir: string;
  readonly root: string;

  constructor(
    readonly name: string,
    private readonly env: Record<string, string>,
    private readonly args: string[] = [],
  ) {
    this.root = mkdtempSync(path.join(tmpdir(), `ab-${name}-`));
    this.dataDir = path.join(this.root, 'data');
    mkdirSync(this.dataDir, { recursive: true, mode: 0o700 });
  }

  get processEnv(): Record<string, string> {
    return { ...this.env, AGENT_BRIDGE_HOME: this.dataDir };
  }

  writeConfig(yaml: string): void {
    writeFileSync(path.join(this.dataDir, 'agent-bridge.yaml'), yaml, { mode: 0o600 });
  }

  start(): ServeProcess {
    this.serve = new ServeProcess(['--no-web', ...this.args], { cwd: this.root, env: this.processEnv });
    return this.serve;
  }

  /** Up once it says which part of the cluster it is. */
  async started(): Promise<ServeProcess> {
    const serve = this.start();
    await waitFor(
      `${this.name} in the cluster`,
      () => /of the cluster at/.test(serve.stderr) || serve.child.exitCode !== null,
      {
        timeoutMs: 30_000,
      },
    );
    if (serve.child.exitCode !== null) throw new Error(`${this.name} exited: ${serve.stderr}`);
    return serve;
  }

  async stop(): Promise<void> {
    await this.serve?.stop();
    this.serve = null;
  }

  /** kill -9: no goodbye, nothing flushed. */
  async kill(): Promise<void> {
    const child = this.serve?.child;
    this.serve = null;
    await endChild(child, 'SIGKILL');
  }

  /** Its audit log, as `agent-bridge logs --json` prints it. */
  audit(): Promise<AuditEntry[]> {
    return auditEntries(this.processEnv);
  }

  async remove(): Promise<void> {
    await this.stop();
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** The `cluster:` section of a node's config. */
export function nodeSection(name: string, url: string, keyFile: string): string {
  return `cluster:\n  nats: ${url}\n  node: ${name}\n  credentials: ${keyFile}\n`;
}

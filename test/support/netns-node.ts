import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { auditEntries, CLI, type AuditEntry } from './cli-under-pty.js';
import { endSessionHosts } from './session-hosts.js';
import { endChild, waitFor } from './wait.js';

const RELAY = fileURLToPath(new URL('../fixtures/socket-relay.mjs', import.meta.url));
const execFileAsync = promisify(execFile);

/** Why tests of nodes in network namespaces of their own are skipped here, for their names ('' if they run). */
export const NO_NETNS = (() => {
  if (process.getuid?.() !== 0) return ' (skipped: network namespaces need root)';
  const probe = spawnSync('unshare', ['--net', 'sh', '-c', 'ip link set lo up'], { encoding: 'utf8' });
  const why = probe.error?.message ?? (probe.stderr || `exit ${probe.status}`).trim();
  if (probe.status !== 0) return ` (skipped: unshare --net fails here: ${why})`;
  return '';
})();

/**
 * A node of a cluster test as a separate host: `agent-bridge serve` in a network namespace of its own (only its
 * loopback up), with a data folder of its own. The one way out is NATS: in its namespace a relay listens on
 * 127.0.0.1:<port> and forwards to a unix socket, which a relay in the test's namespace forwards to nats-server.
 */
export class NetnsNode {
  readonly root: string;
  readonly dataDir: string;
  private readonly socket: string;
  private bridge: ChildProcess | null = null;
  private serve: ChildProcess | null = null;
  stderr = '';

  constructor(
    readonly name: string,
    private readonly env: Record<string, string>,
  ) {
    this.root = mkdtempSync(path.join(tmpdir(), `ab-${name}-`));
    this.dataDir = path.join(this.root, 'data');
    mkdirSync(this.dataDir, { recursive: true, mode: 0o700 });
    this.socket = path.join(this.root, 'nats.sock');
  }

  get processEnv(): Record<string, string> {
    return { ...this.env, AGENT_BRIDGE_HOME: this.dataDir };
  }

  writeConfig(yaml: string): void {
    writeFileSync(path.join(this.dataDir, 'agent-bridge.yaml'), yaml, { mode: 0o600 });
  }

  /** The pid of a process in its namespace (the relay serve runs under). */
  get pid(): number {
    const pid = this.serve?.pid;
    if (!pid) throw new Error(`${this.name} is not running`);
    return pid;
  }

  /** Its network namespace, as the kernel names it (net:[inode]). */
  namespace(): string {
    return readlinkSync(`/proc/${this.pid}/ns/net`);
  }

  /**
   * Starts serve in a new network namespace, its NATS reached at 127.0.0.1:`innerPort` there, relayed to
   * 127.0.0.1:`natsPort` here; up once it says it is part of the cluster.
   */
  async start(natsPort: number, innerPort: number): Promise<void> {
    this.bridge = spawn(process.execPath, [RELAY, this.socket, String(natsPort)], { stdio: 'ignore' });
    await waitFor(`${this.name}'s NATS socket`, () => existsSync(this.socket) || ended(this.bridge!));
    if (ended(this.bridge)) throw new Error(`the relay to NATS of ${this.name} exited`);
    const serve = spawn(
      'unshare',
      [
        '--net',
        'sh',
        '-c',
        'ip link set lo up && exec "$@"',
        'sh',
        process.execPath,
        RELAY,
        String(innerPort),
        this.socket,
        process.execPath,
        CLI,
        'serve',
        '--no-terminal',
        '--no-web',
      ],
      // A process group of its own: the test ends all of it, whatever serve leaves behind.
      { cwd: this.root, env: this.processEnv, detached: true, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    this.serve = serve;
    serve.stderr!.on('data', (d) => (this.stderr += String(d)));
    await waitFor(
      `${this.name} in the cluster`,
      () => /of the cluster at/.test(this.stderr) || ended(serve),
      { timeoutMs: 30_000 },
    );
    if (ended(serve)) throw new Error(`${this.name} exited: ${this.stderr}`);
  }

  /** Tries a TCP connection to 127.0.0.1:`port` from inside its namespace: 'connected' or the error's code. */
  async connectFromInside(port: number): Promise<string> {
    const probe =
      `const s = require('node:net').connect(${port}, '127.0.0.1');` +
      `s.on('connect', () => { console.log('connected'); s.destroy(); });` +
      `s.on('error', (e) => console.log(e.code));`;
    const { stdout } = await execFileAsync('nsenter', [
      `--net=/proc/${this.pid}/ns/net`,
      process.execPath,
      '-e',
      probe,
    ]);
    return stdout.trim();
  }

  /** Its audit log, as `agent-bridge logs --json` prints it. */
  audit(): Promise<AuditEntry[]> {
    return auditEntries(this.processEnv);
  }

  /** Stops serve (SIGTERM to the relay, which passes it on), kills what is left of its group, its session hosts. */
  async remove(): Promise<void> {
    const serve = this.serve;
    this.serve = null;
    if (serve?.pid) {
      if (!ended(serve)) {
        serve.kill('SIGTERM');
        await waitFor('serve to stop', () => ended(serve), { timeoutMs: 15_000 }).catch(() => undefined);
      }
      killGroup(serve.pid);
    }
    await endSessionHosts(this.dataDir);
    const bridge = this.bridge;
    this.bridge = null;
    await endChild(bridge, 'SIGKILL');
    rmSync(this.root, { recursive: true, force: true });
  }
}

const ended = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // The group has ended already.
  }
}

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { newUserKey, serverConfig } from '../../src/cluster/server-config.js';
import { endChild, waitFor } from './wait.js';

/** Debian's nats-server (CI installs it); null when it is not on this machine. */
export const NATS_SERVER: string | null = (() => {
  for (const candidate of ['nats-server', '/usr/sbin/nats-server', '/usr/bin/nats-server']) {
    const probe = spawnSync(candidate, ['--version'], { encoding: 'utf8' });
    if (probe.status === 0) return candidate;
  }
  return null;
})();

/** Why cluster tests are skipped here, for their names. */
export const NO_NATS = NATS_SERVER
  ? ''
  : ' (skipped: nats-server is not installed; apt-get install nats-server)';

export interface NatsWorld {
  /** nats://127.0.0.1:<port> */
  url: string;
  port: number;
  dir: string;
  /** The seed file (0600) of a hub or node named in the config. */
  keyFile(name: string): string;
  /** Stops the server (SIGTERM) and waits; its JetStream folder stays for a restart. */
  stop(): Promise<void>;
  /** Starts it again on the same port with the same streams. */
  restart(): Promise<void>;
  /** Stops it and removes its folder. */
  close(): Promise<void>;
  log(): string;
}

/**
 * A real nats-server on a random port of 127.0.0.1 with JetStream in a temp folder, configured as
 * `agent-bridge cluster init` configures one: an nkey per hub and node, per-node permissions, no anonymous
 * clients. Optionally TLS with the given certificate.
 */
export async function startNats(options: {
  hubs?: string[];
  nodes: string[];
  tls?: { cert: string; key: string };
}): Promise<NatsWorld> {
  if (!NATS_SERVER) throw new Error('nats-server is not installed');
  const dir = mkdtempSync(path.join(tmpdir(), 'ab-nats-'));
  const keys = new Map<string, string>();
  const users = (names: string[]) =>
    names.map((name) => {
      const key = newUserKey();
      const file = path.join(dir, `${name}.nk`);
      writeFileSync(file, key.seed + '\n', { mode: 0o600 });
      keys.set(name, file);
      return { name, publicKey: key.publicKey };
    });
  const hubs = users(options.hubs ?? ['hub']);
  const nodes = users(options.nodes);
  let port = -1;
  let child: ChildProcess | null = null;
  let output = '';
  const launch = async () => {
    const conf = path.join(dir, 'nats-server.conf');
    writeFileSync(
      conf,
      serverConfig({
        host: '127.0.0.1',
        port,
        storeDir: path.join(dir, 'jetstream'),
        hubs,
        nodes,
        ...(options.tls ? { tls: options.tls } : {}),
      }),
    );
    const started = spawn(NATS_SERVER!, ['-c', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    let log = '';
    started.stderr!.on('data', (d) => {
      log += String(d);
      output += String(d);
    });
    started.stdout!.resume();
    await waitFor('nats-server ready', () => /Server is ready/.test(log) || started.exitCode !== null, {
      timeoutMs: 15_000,
    });
    if (started.exitCode !== null) throw new Error(`nats-server exited: ${log}`);
    port = Number(/Listening for client connections on [\d.]+:(\d+)/.exec(log)![1]);
  };
  const stop = async () => {
    const running = child;
    child = null;
    await endChild(running);
  };
  await launch();
  return {
    get url() {
      return `nats://127.0.0.1:${port}`;
    },
    get port() {
      return port;
    },
    dir,
    keyFile: (name) => {
      const file = keys.get(name);
      if (!file) throw new Error(`no key for ${name}`);
      return file;
    },
    stop,
    restart: launch,
    close: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
    log: () => output,
  };
}

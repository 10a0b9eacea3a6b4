/**
 * The peers web-terminal measures side by side: wetty (npm, a devDependency: Node, socket.io) and ttyd (C,
 * libwebsockets) where it is installed. Each serves the same workload script on 127.0.0.1; each of their
 * clients gets a program of its own (that is how they work). A peer that is missing is skipped with a note.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import type { Peer } from './web-viewers.js';
import { sleep } from './support.js';

export interface PeerServer {
  name: string;
  peer: Exclude<Peer, 'agent-bridge'>;
  url: string;
  /** The server's process: its CPU (and that of the programs it ran for its clients) is the peer's side. */
  pid: number;
  stop(): void;
}

export interface Peers {
  running: PeerServer[];
  /** Why a peer is not measured. */
  skipped: string[];
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Waits until `url` answers HTTP (the server is up), or the child has exited. */
async function up(url: string, child: ChildProcess, what: string): Promise<void> {
  for (let tries = 0; tries < 200; tries++) {
    if (child.exitCode !== null) throw new Error(`${what} exited (${child.exitCode}) before it listened`);
    const ok = await fetch(url).then(
      (response) => response.status < 500,
      () => false,
    );
    if (ok) return;
    await sleep(50);
  }
  throw new Error(`${what} did not listen within 10 s`);
}

function stopper(child: ChildProcess): () => void {
  return () => {
    if (child.exitCode === null) child.kill('SIGTERM');
  };
}

async function startWetty(root: string, workload: string): Promise<PeerServer> {
  // wetty's package exports no subpaths: its entry is build/main.js in its folder.
  const main = path.join(root, 'node_modules', 'wetty', 'build', 'main.js');
  if (!existsSync(main)) throw new Error(`not installed (${main}): npm install`);
  const port = await freePort();
  // As root on 127.0.0.1 wetty runs the command itself (`env -S <command>`), with no login or ssh.
  const child = spawn(
    process.execPath,
    [main, '--host', '127.0.0.1', '--port', String(port), '--base', '/wetty', '--command', `sh ${workload}`],
    { stdio: 'ignore' },
  );
  const url = `http://127.0.0.1:${port}`;
  await up(`${url}/wetty`, child, 'wetty');
  return { name: 'wetty', peer: 'wetty', url, pid: child.pid!, stop: stopper(child) };
}

async function startTtyd(workload: string): Promise<PeerServer> {
  const port = await freePort();
  const child = spawn('ttyd', ['-W', '-i', '127.0.0.1', '-p', String(port), 'sh', workload], {
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  await up(url, child, 'ttyd');
  return { name: 'ttyd', peer: 'ttyd', url, pid: child.pid!, stop: stopper(child) };
}

export async function startPeers(root: string, workload: string): Promise<Peers> {
  const peers: Peers = { running: [], skipped: [] };
  try {
    if (process.getuid?.() !== 0) throw new Error('it runs its command itself only for root (else: login)');
    peers.running.push(await startWetty(root, workload));
  } catch (error) {
    peers.skipped.push(`wetty skipped: ${(error as Error).message}`);
  }
  if (spawnSync('ttyd', ['--version']).error) {
    peers.skipped.push(
      'ttyd skipped: not on the PATH (`apt-get install ttyd` where the release packages it, or build 1.7.7: bench/README.md)',
    );
  } else {
    try {
      peers.running.push(await startTtyd(workload));
    } catch (error) {
      peers.skipped.push(`ttyd skipped: ${(error as Error).message}`);
    }
  }
  return peers;
}

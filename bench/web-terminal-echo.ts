/**
 * web-terminal's two helpers on the bench side: the viewers' process (bench/web-viewers.ts, forked under tsx)
 * and the keystroke → echo measurement (raw node-pty, an in-process viewer and a WebSocket viewer).
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt, latencyRows, percentile, sleep } from './support.js';
import type { BenchContext, Result } from './types.js';
import { atLeast, atMost, info, measurement } from './util.js';
import type { Command, Reply } from './web-viewers.js';
import type { PeerServer } from './web-peers.js';
import { ECHO_MARKER, Echoer, rawEcho, workloadLine, type WebHost } from './web-terminal-host.js';

const SAMPLES = { quick: 100, full: 500 };
const ECHO_WARMUPS = 20;
const P99_TARGET_MS = 10;
const HERE = path.dirname(fileURLToPath(import.meta.url));

export function echoSamples(ctx: BenchContext): number {
  return ctx.quick ? SAMPLES.quick : SAMPLES.full;
}

/** The viewers' process (bench/web-viewers.ts under tsx): one request at a time. */
export class ViewerProcess {
  private readonly child: ChildProcess;
  private waiting: { resolve: (reply: Reply) => void; reject: (error: Error) => void } | null = null;

  constructor(cwd: string) {
    this.child = fork(path.join(HERE, 'web-viewers.ts'), [], {
      cwd,
      execArgv: process.execArgv,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child.on('message', (reply: Reply) => {
      const waiting = this.waiting;
      this.waiting = null;
      if (reply.type === 'error') waiting?.reject(new Error(`viewer process: ${reply.message}`));
      else waiting?.resolve(reply);
    });
    this.child.on('exit', (code, signal) => {
      this.waiting?.reject(new Error(`the viewer process exited: ${signal ?? code}`));
      this.waiting = null;
    });
  }

  request<T extends Reply['type']>(command: Command, type: T): Promise<Extract<Reply, { type: T }>> {
    const reply = new Promise<Reply>((resolve, reject) => (this.waiting = { resolve, reject }));
    this.child.send(command);
    return reply.then((r) => {
      if (r.type !== type) throw new Error(`viewer process: expected ${type}, got ${r.type}`);
      return r as Extract<Reply, { type: T }>;
    });
  }

  stop(): void {
    if (this.child.connected) this.child.disconnect();
  }
}

interface Reader {
  name: string;
  /** Types `char` and resolves with the ms until its echo arrived. */
  sample(char: string): Promise<number>;
  ms: number[];
  close(): Promise<void>;
}

export interface EchoSetup {
  host: WebHost;
  viewers: ViewerProcess;
  peers: PeerServer[];
  /** The workload script (echo mode). */
  file: string;
  cwd: string;
}

/** A client in a viewers' process of its own, in echo mode: agent-bridge's viewer, or a peer's client. */
async function remoteReader(name: string, root: string, attach: Command): Promise<Reader> {
  const process = new ViewerProcess(root);
  await process.request(attach, 'attached');
  await process.request({ cmd: 'echo-mode', line: workloadLine('echo', 0), marker: ECHO_MARKER }, 'ready');
  return {
    name,
    sample: async (c) => (await process.request({ cmd: 'echo', char: c }, 'echoed')).ms,
    ms: [],
    close: async () => {
      await process.request({ cmd: 'close' }, 'closed');
      process.stop();
    },
  };
}

async function inProcessReader(host: WebHost, file: string): Promise<Reader & { id: string }> {
  const id = await host.startSession(file);
  let input: (data: string) => void = () => undefined;
  let ready: () => void = () => undefined;
  const isReady = new Promise<void>((resolve) => (ready = resolve));
  let armed = false;
  const echoer = new Echoer((data) => input(data));
  const viewer = await host.attach(id, (chunk) => {
    if (armed) return echoer.feed(chunk);
    armed = Buffer.from(chunk).includes(ECHO_MARKER);
    if (armed) ready();
  });
  input = (data) => viewer.input(data);
  input(workloadLine('echo', 0));
  await isReady;
  return {
    id,
    name: 'in-process viewer',
    sample: (c) => echoer.sample(c),
    ms: [],
    close: async () => {
      viewer.detach();
      await host.stop(id);
    },
  };
}

/** Keystroke → echo, interleaved and rotated: raw node-pty, in-process, agent-bridge's WebSocket, each peer. */
export async function latency(ctx: BenchContext, setup: EchoSetup, result: Result) {
  const { host, peers, file, cwd } = setup;
  const count = echoSamples(ctx);
  ctx.log(`  keystroke → echo: ${count} samples per reader, interleaved`);
  const raw = await rawEcho(file, cwd);
  const socketId = await host.startSession(file);
  const readers: Reader[] = [
    { name: 'raw node-pty', sample: (c) => raw.echoer.sample(c), ms: [], close: async () => raw.close() },
    await inProcessReader(host, file),
    await remoteReader('agent-bridge WebSocket', ctx.root, {
      cmd: 'attach',
      peer: 'agent-bridge',
      url: host.url,
      token: host.token,
      sessionId: socketId,
      viewers: 1,
    }),
  ];
  for (const peer of peers)
    readers.push(
      await remoteReader(peer.name, ctx.root, { cmd: 'attach', peer: peer.peer, url: peer.url, viewers: 1 }),
    );
  try {
    for (let i = 0; i < ECHO_WARMUPS + count; i++) {
      for (let k = 0; k < readers.length; k++) {
        const reader = readers[(i + k) % readers.length]!;
        const ms = await reader.sample(String.fromCharCode(97 + (i % 26)));
        if (i >= ECHO_WARMUPS) reader.ms.push(ms);
        await sleep(1 + ((i * 7 + k * 3) % 10)); // small gaps, 1–10 ms: typing faster than anyone does
      }
    }
  } finally {
    for (const reader of readers) await reader.close();
    await host.stop(socketId);
  }
  report(readers, result, ctx);
}

function report(readers: Reader[], result: Result, ctx: BenchContext): void {
  const byName = (name: string) => readers.find((r) => r.name === name)!;
  const ours = byName('agent-bridge WebSocket');
  const raw = byName('raw node-pty');
  for (const reader of readers) result.measurements.push(measurement(`echo: ${reader.name}`, reader.ms));
  const p = (r: Reader, n: number) => percentile(r.ms, n);
  result.ratios.push(atMost('agent-bridge WebSocket echo p99 (ms)', p(ours, 99), P99_TARGET_MS));
  for (const peer of readers.slice(3))
    result.ratios.push(
      atLeast(`echo p50: ${peer.name} / agent-bridge`, p(peer, 50) / p(ours, 50), 1),
      atLeast(`echo p99: ${peer.name} / agent-bridge`, p(peer, 99) / p(ours, 99), 1),
    );
  for (const reader of readers) result.ratios.push(...latencyRows(`${reader.name} echo`, reader.ms));
  result.ratios.push(info('agent-bridge WebSocket p50 − raw node-pty p50 (ms)', p(ours, 50) - p(raw, 50)));
  ctx.log(
    '  echo p50/p99: ' + readers.map((r) => `${r.name} ${fmt(p(r, 50))}/${fmt(p(r, 99))} ms`).join(', '),
  );
}

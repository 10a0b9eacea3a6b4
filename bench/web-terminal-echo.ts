/**
 * web-terminal's two helpers on the bench side: the viewers' process (bench/web-viewers.ts, forked under tsx)
 * and the keystroke → echo measurement (raw node-pty, an in-process viewer and a WebSocket viewer).
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt, latencyRows, percentile, sleep } from './support.js';
import type { BenchContext, Result } from './types.js';
import { atMost, info, measurement } from './util.js';
import type { Command, Reply } from './web-viewers.js';
import { ECHO_SCRIPT, Echoer, rawEcho, type WebHost } from './web-terminal-host.js';

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
}

/** Keystroke → echo, interleaved and rotated: raw node-pty, an in-process viewer, a WebSocket viewer. */
export async function latency(
  ctx: BenchContext,
  host: WebHost,
  viewers: ViewerProcess,
  cwd: string,
  result: Result,
) {
  const count = echoSamples(ctx);
  ctx.log(`  keystroke → echo: ${count} samples per reader, interleaved`);
  const raw = await rawEcho(cwd);
  const inProcessId = await host.startSession(ECHO_SCRIPT);
  let input: (data: string) => void = () => undefined;
  const inProcessEcho = new Echoer((data) => input(data));
  const viewer = await host.attach(inProcessId, (chunk) => inProcessEcho.feed(chunk));
  input = (data) => viewer.input(data);
  const socketId = await host.startSession(ECHO_SCRIPT);
  await viewers.request(
    { cmd: 'attach', url: host.url, token: host.token, sessionId: socketId, viewers: 1 },
    'attached',
  );
  const readers: [Reader, Reader, Reader] = [
    { name: 'raw node-pty', sample: (c) => raw.echoer.sample(c), ms: [] },
    { name: 'in-process viewer', sample: (c) => inProcessEcho.sample(c), ms: [] },
    {
      name: 'WebSocket viewer',
      sample: async (c) => (await viewers.request({ cmd: 'echo', char: c }, 'echoed')).ms,
      ms: [],
    },
  ];
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
    raw.close();
    viewer.detach();
    await viewers.request({ cmd: 'close' }, 'closed');
    await host.stop(inProcessId);
    await host.stop(socketId);
  }
  const [rawR, inProcessR, socketR] = readers;
  for (const reader of readers) result.measurements.push(measurement(`echo: ${reader.name}`, reader.ms));
  const p = (r: Reader, n: number) => percentile(r.ms, n);
  result.ratios.push(
    info('WebSocket echo p50 (ms)', p(socketR, 50)),
    info('WebSocket echo p90 (ms)', p(socketR, 90)),
    atMost('WebSocket echo p99 (ms)', p(socketR, 99), P99_TARGET_MS),
    ...latencyRows('raw node-pty echo', rawR.ms),
    ...latencyRows('in-process viewer echo', inProcessR.ms),
    info('WebSocket p50 − raw node-pty p50 (ms)', p(socketR, 50) - p(rawR, 50)),
    info('WebSocket p99 − raw node-pty p99 (ms)', p(socketR, 99) - p(rawR, 99)),
  );
  ctx.log(
    `  echo p50/p99: raw ${fmt(p(rawR, 50))}/${fmt(p(rawR, 99))} ms, WebSocket ${fmt(p(socketR, 50))}/${fmt(p(socketR, 99))} ms`,
  );
}

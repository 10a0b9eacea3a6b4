/**
 * The browsers of web-terminal, in a process of their own (forked under tsx by bench/web-terminal.ts and
 * driven over IPC): N `ws` clients on one live terminal, each counting the bytes of its binary frames, or one
 * client timing keystroke echoes. Clients connect as a script would: `Authorization: Bearer`, and an Origin
 * equal to the server's URL; they offer permessage-deflate as browsers do (the reply says what was agreed).
 */
import WebSocket from 'ws';
import { Echoer } from './web-terminal-host.js';

export type Command =
  | { cmd: 'attach'; url: string; token: string; sessionId: string; viewers: number }
  | { cmd: 'stream'; timeoutMs: number }
  | { cmd: 'echo'; char: string }
  | { cmd: 'close' };

export type Reply =
  | { type: 'attached'; extensions: string }
  | {
      type: 'streamed';
      /** Bytes of binary frames, per viewer. */
      bytes: number[];
      /** Viewers that fell behind: the server skipped their backlog and redrew their screen. */
      redrawn: boolean[];
      /** First byte at any viewer to last byte at the last viewer, ms. */
      ms: number;
      /** This process's CPU (user + system) over the stream, ms. */
      cpuMs: number;
      /** Viewers that got the exit frame before the time-out. */
      exited: number;
      /** Binary frames the first viewer got. */
      frames: number;
    }
  | { type: 'echoed'; ms: number }
  | { type: 'closed' }
  | { type: 'error'; message: string };

class Viewer {
  bytes = 0;
  /** Screen frames after the first: the server skipped output this viewer fell behind on, then redrew it. */
  redraws = 0;
  private readied = false;
  frames = 0;
  first = 0;
  last = 0;
  exited = false;
  onBinary: ((chunk: Buffer) => void) | null = null;
  onExit: (() => void) | null = null;
  readonly ws: WebSocket;
  readonly ready: Promise<void>;

  constructor(url: string, token: string, sessionId: string) {
    this.ws = new WebSocket(`${url.replace(/^http/, 'ws')}/ws/terminal/${sessionId}`, {
      headers: { authorization: `Bearer ${token}`, origin: url },
    });
    this.ready = new Promise((resolve, reject) => {
      this.ws.on('error', reject);
      this.ws.on('unexpected-response', (_request, response) =>
        reject(new Error(`websocket refused: ${response.statusCode}`)),
      );
      this.ws.on('close', (code, reason) => reject(new Error(`websocket closed: ${code} ${String(reason)}`)));
      this.ws.on('message', (data, isBinary) => {
        if (isBinary) {
          const chunk = data as Buffer;
          this.last = performance.now();
          if (this.bytes === 0) this.first = this.last;
          this.bytes += chunk.length;
          this.frames++;
          this.onBinary?.(chunk);
          return;
        }
        const message = JSON.parse(String(data)) as { type: string };
        if (message.type === 'screen') {
          if (this.readied) this.redraws++;
          this.readied = true;
          resolve();
        }
        if (message.type === 'exit') {
          this.exited = true;
          this.onExit?.();
        }
      });
    });
  }

  reset(): void {
    this.bytes = 0;
    this.redraws = 0;
    this.frames = 0;
    this.first = 0;
    this.last = 0;
  }
}

let viewers: Viewer[] = [];
let echoer: Echoer | null = null;

async function attach(command: Extract<Command, { cmd: 'attach' }>): Promise<Reply> {
  viewers = Array.from(
    { length: command.viewers },
    () => new Viewer(command.url, command.token, command.sessionId),
  );
  await Promise.all(viewers.map((v) => v.ready));
  for (const viewer of viewers) viewer.reset(); // nothing counts before the key
  const first = viewers[0]!;
  echoer = new Echoer((data) => first.ws.send(JSON.stringify({ type: 'input', data })));
  first.onBinary = (chunk) => echoer?.feed(chunk);
  return { type: 'attached', extensions: first.ws.extensions };
}

async function stream(timeoutMs: number): Promise<Reply> {
  const cpu = process.cpuUsage();
  const allExited = new Promise<void>((resolve) => {
    const check = () => viewers.every((v) => v.exited) && resolve();
    for (const viewer of viewers) viewer.onExit = check;
  });
  viewers[0]!.ws.send(JSON.stringify({ type: 'input', data: '\r' }));
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([allExited, new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
  clearTimeout(timer);
  const used = process.cpuUsage(cpu);
  const received = viewers.filter((v) => v.bytes > 0);
  const first = Math.min(...received.map((v) => v.first));
  const last = Math.max(...received.map((v) => v.last));
  return {
    type: 'streamed',
    bytes: viewers.map((v) => v.bytes),
    redrawn: viewers.map((v) => v.redraws > 0),
    ms: received.length > 0 ? last - first : Number.NaN,
    cpuMs: (used.user + used.system) / 1000,
    exited: viewers.filter((v) => v.exited).length,
    frames: viewers[0]!.frames,
  };
}

async function close(): Promise<Reply> {
  await Promise.all(
    viewers.map(
      (v) =>
        new Promise<void>((resolve) => {
          if (v.ws.readyState === WebSocket.CLOSED) return resolve();
          v.ws.on('close', () => resolve());
          v.ws.close();
        }),
    ),
  );
  viewers = [];
  echoer = null;
  return { type: 'closed' };
}

async function handle(command: Command): Promise<Reply> {
  switch (command.cmd) {
    case 'attach':
      return attach(command);
    case 'stream':
      return stream(command.timeoutMs);
    case 'echo':
      if (!echoer) throw new Error('no viewer attached');
      return { type: 'echoed', ms: await echoer.sample(command.char) };
    case 'close':
      return close();
  }
}

process.on('message', (command: Command) => {
  handle(command).then(
    (reply) => process.send!(reply),
    (error: unknown) => process.send!({ type: 'error', message: String(error) } satisfies Reply),
  );
});
process.on('disconnect', () => process.exit(0));

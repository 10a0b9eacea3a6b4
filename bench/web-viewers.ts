/**
 * The browsers of web-terminal, in a process of their own (forked under tsx by bench/web-terminal.ts and
 * driven over IPC): N clients of agent-bridge's live terminal (`ws`, all on one session), or of a peer (wetty:
 * socket.io; ttyd: its `tty` WebSocket protocol; each client its own process, as those servers work). Each
 * counts the bytes of output it gets; one client can time keystroke echoes. agent-bridge's clients connect
 * as a script would: `Authorization: Bearer`, an Origin equal to the server's URL, permessage-deflate offered
 * as browsers do (the reply says what was agreed).
 */
import { io, type Socket } from 'socket.io-client';
import WebSocket from 'ws';
import { Echoer } from './web-terminal-host.js';

export type Peer = 'agent-bridge' | 'wetty' | 'ttyd';

export type Command =
  | { cmd: 'attach'; peer: Peer; url: string; token?: string; sessionId?: string; viewers: number }
  /** Types `line` and waits until every client got `bytes` (the session's warm-up), counting from 0 after. */
  | { cmd: 'warm'; line: string; bytes: number; timeoutMs: number }
  | { cmd: 'stream'; line: string; timeoutMs: number }
  | { cmd: 'echo-mode'; line: string; marker: string }
  | { cmd: 'echo'; char: string }
  | { cmd: 'close' };

export type Reply =
  | { type: 'attached'; extensions: string }
  | {
      type: 'streamed';
      /** Bytes of output, per client. */
      bytes: number[];
      /** Clients that fell behind: the server skipped their backlog and redrew their screen. */
      redrawn: boolean[];
      /** The line sent to the last byte at the last client, ms. */
      ms: number;
      /** This process's CPU (user + system) over the stream, ms. */
      cpuMs: number;
      /** Clients that saw the end (exit frame, logout, close) before the time-out. */
      exited: number;
      /** Output messages the first client got. */
      frames: number;
    }
  | { type: 'warmed' }
  | { type: 'ready' }
  | { type: 'echoed'; ms: number }
  | { type: 'closed' }
  | { type: 'error'; message: string };

const MARKER = '#';

/** One client: it counts output after reset(), and says when its terminal is ready (MARKER) and ended. */
abstract class Client {
  bytes = 0;
  redraws = 0;
  frames = 0;
  last = 0;
  ended = false;
  onOutput: ((chunk: Buffer) => void) | null = null;
  onEnd: (() => void) | null = null;
  readonly ready: Promise<void>;
  protected markReady: () => void = () => undefined;
  protected fail: (error: Error) => void = () => undefined;
  private seenMarker = false;

  constructor() {
    this.ready = new Promise((resolve, reject) => {
      this.markReady = resolve;
      this.fail = reject;
    });
  }

  abstract type(data: string): void;
  abstract close(): Promise<void>;
  abstract get extensions(): string;

  reset(): void {
    this.bytes = 0;
    this.redraws = 0;
    this.frames = 0;
    this.last = 0;
  }

  protected output(chunk: Buffer): void {
    if (!this.seenMarker) {
      this.seenMarker = chunk.includes(MARKER);
      if (this.seenMarker) this.markReady();
      return;
    }
    this.last = performance.now();
    this.bytes += chunk.length;
    this.frames++;
    this.onOutput?.(chunk);
  }

  protected end(): void {
    this.ended = true;
    this.onEnd?.();
  }
}

class AgentBridgeClient extends Client {
  private readonly ws: WebSocket;
  private screens = 0;

  constructor(url: string, token: string, sessionId: string) {
    super();
    this.ws = new WebSocket(`${url.replace(/^http/, 'ws')}/ws/terminal/${sessionId}`, {
      headers: { authorization: `Bearer ${token}`, origin: url },
    });
    this.ws.on('error', (error) => this.fail(error));
    this.ws.on('unexpected-response', (_request, response) =>
      this.fail(new Error(`websocket refused: ${response.statusCode}`)),
    );
    this.ws.on('message', (data, isBinary) => {
      if (isBinary) return this.output(data as Buffer);
      const message = JSON.parse(String(data)) as { type: string; data?: string };
      if (message.type === 'screen') {
        // The first screen is the attach; another one is a redraw after the server skipped our backlog.
        if (this.screens++ > 0) this.redraws++;
        else if (message.data?.includes(MARKER)) this.output(Buffer.from(MARKER));
      }
      if (message.type === 'exit') this.end();
    });
  }

  get extensions(): string {
    return this.ws.extensions;
  }

  type(data: string): void {
    this.ws.send(JSON.stringify({ type: 'input', data }));
  }

  close(): Promise<void> {
    return closeWs(this.ws);
  }
}

/** wetty's browser client: socket.io, `resize` first, output as `data` strings, `commit` every 256 KiB read. */
class WettyClient extends Client {
  private readonly socket: Socket;
  private uncommitted = 0;

  constructor(url: string) {
    super();
    this.socket = io(url, { path: '/wetty/socket.io', transports: ['websocket'], forceNew: true });
    this.socket.on('connect', () => this.socket.emit('resize', { cols: 120, rows: 40 }));
    this.socket.on('connect_error', (error) => this.fail(error));
    this.socket.on('data', (data: string) => {
      const chunk = Buffer.from(data, 'utf8');
      this.uncommitted += data.length;
      // Flow control as wetty's client does it: the server pauses the program at 2 MB unacknowledged.
      if (this.uncommitted >= 262_144) {
        this.uncommitted -= 262_144;
        this.socket.emit('commit', 262_144);
      }
      this.output(chunk);
    });
    this.socket.on('logout', () => this.end());
  }

  get extensions(): string {
    return 'socket.io';
  }

  type(data: string): void {
    this.socket.emit('input', data);
  }

  async close(): Promise<void> {
    this.socket.close();
  }
}

/** ttyd's browser client: WebSocket subprotocol `tty`, a JSON hello, then messages tagged by a first byte. */
class TtydClient extends Client {
  private readonly ws: WebSocket;

  constructor(url: string) {
    super();
    this.ws = new WebSocket(`${url.replace(/^http/, 'ws')}/ws`, ['tty']);
    this.ws.on('open', () =>
      this.ws.send(Buffer.from(JSON.stringify({ AuthToken: '', columns: 120, rows: 40 }))),
    );
    this.ws.on('error', (error) => this.fail(error));
    this.ws.on('message', (data) => {
      const message = data as Buffer;
      if (message[0] === 0x30) this.output(message.subarray(1)); // '0': output
    });
    this.ws.on('close', () => this.end());
  }

  get extensions(): string {
    return this.ws.extensions;
  }

  type(data: string): void {
    this.ws.send(Buffer.concat([Buffer.from('0'), Buffer.from(data)]));
  }

  close(): Promise<void> {
    return closeWs(this.ws);
  }
}

function closeWs(ws: WebSocket): Promise<void> {
  return new Promise((resolve) => {
    if (ws.readyState === WebSocket.CLOSED) return resolve();
    ws.on('close', () => resolve());
    ws.close();
  });
}

let clients: Client[] = [];
let echoer: Echoer | null = null;

function client(command: Extract<Command, { cmd: 'attach' }>): Client {
  if (command.peer === 'wetty') return new WettyClient(command.url);
  if (command.peer === 'ttyd') return new TtydClient(command.url);
  return new AgentBridgeClient(command.url, command.token!, command.sessionId!);
}

async function attach(command: Extract<Command, { cmd: 'attach' }>): Promise<Reply> {
  clients = Array.from({ length: command.viewers }, () => client(command));
  await Promise.all(clients.map((c) => c.ready));
  for (const c of clients) c.reset(); // nothing counts before the line
  return { type: 'attached', extensions: clients[0]!.extensions };
}

/** agent-bridge's viewers share one session: one of them types; a peer's clients each type into their own. */
function typers(): Client[] {
  return clients[0] instanceof AgentBridgeClient ? clients.slice(0, 1) : clients;
}

async function warm(line: string, bytes: number, timeoutMs: number): Promise<Reply> {
  const deadline = performance.now() + timeoutMs;
  for (const c of typers()) c.type(line);
  while (!clients.every((c) => c.bytes >= bytes || c.redraws > 0)) {
    if (performance.now() > deadline) throw new Error(`the warm-up's ${bytes} bytes did not arrive`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  for (const c of clients) c.reset();
  return { type: 'warmed' };
}

async function stream(line: string, timeoutMs: number): Promise<Reply> {
  const cpu = process.cpuUsage();
  const allEnded = new Promise<void>((resolve) => {
    const check = () => clients.every((c) => c.ended) && resolve();
    for (const c of clients) c.onEnd = check;
  });
  const typedAt = performance.now();
  for (const c of typers()) c.type(line);
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([allEnded, new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
  clearTimeout(timer);
  // wetty says `logout` before its last output (it gathers output for 2 ms): take what still comes.
  await new Promise((resolve) => setTimeout(resolve, 100));
  const used = process.cpuUsage(cpu);
  const received = clients.filter((c) => c.bytes > 0);
  return {
    type: 'streamed',
    bytes: clients.map((c) => c.bytes),
    redrawn: clients.map((c) => c.redraws > 0),
    ms: received.length > 0 ? Math.max(...received.map((c) => c.last)) - typedAt : Number.NaN,
    cpuMs: (used.user + used.system) / 1000,
    exited: clients.filter((c) => c.ended).length,
    frames: clients[0]!.frames,
  };
}

/** The first client types `line` (its terminal turns to echo mode) and waits for `marker`. */
async function echoMode(line: string, marker: string): Promise<Reply> {
  const first = clients[0]!;
  await new Promise<void>((resolve) => {
    first.onOutput = (chunk) => chunk.includes(marker) && resolve();
    first.type(line);
  });
  echoer = new Echoer((data) => first.type(data));
  first.onOutput = (chunk) => echoer?.feed(chunk);
  return { type: 'ready' };
}

async function close(): Promise<Reply> {
  await Promise.all(clients.map((c) => c.close()));
  clients = [];
  echoer = null;
  return { type: 'closed' };
}

async function handle(command: Command): Promise<Reply> {
  switch (command.cmd) {
    case 'attach':
      return attach(command);
    case 'warm':
      return warm(command.line, command.bytes, command.timeoutMs);
    case 'stream':
      return stream(command.line, command.timeoutMs);
    case 'echo-mode':
      return echoMode(command.line, command.marker);
    case 'echo':
      if (!echoer) throw new Error('no client in echo mode');
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

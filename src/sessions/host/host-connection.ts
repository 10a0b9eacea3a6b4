import type WebSocket from 'ws';
import type * as WsModule from 'ws';
import type { Clock } from '../../core/clock.js';
import type { CellSize } from '../../drivers/terminal/terminal-port.js';
import { trustedHost } from './host-files.js';
import {
  FRAME_LIMIT,
  OLDEST_PROTOCOL,
  parseHostFrame,
  PROTOCOL,
  SCREENS_PROTOCOL,
  type ClientKind,
  type ClientRequest,
  type Hello,
  type HostFrame,
} from './host-wire.js';

/** A host that does not welcome a client this soon is not answering (stopped, or not a host at all). */
const WELCOME_TIMEOUT_MS = 10_000;

export type Welcome = Extract<HostFrame, { type: 'welcome' }>;
type Reply = Extract<HostFrame, { type: 'reply' }>;
type RequestBody<T> = T extends { req: number } ? Omit<T, 'req'> : never;

/** The host would not have this client, or could not be reached: the message says what to do. */
export class HostUnavailable extends Error {
  override name = 'HostUnavailable';
}

export interface ConnectOptions {
  dataDir: string;
  /** The host's socket, as the store names it: used only once checked (host-files.ts). */
  socket: string;
  client: ClientKind;
  control?: Hello['control'];
  size?: CellSize;
  drives?: boolean;
  output?: boolean;
  linesAfter?: number;
  /** Read the screen the host keeps (protocol 2; an older host is read from its output instead). */
  screens?: boolean;
  /** The host was started with this process's terminal: it writes the output there (protocol 2). */
  direct?: boolean;
  /** Only watch: the host refuses this client's keys, sizes and Stop. */
  watch?: boolean;
  clock: Clock;
}

/**
 * A controller with no terminal of its own (`serve`, `approvals answer`) connecting to the session a record
 * names: it reads the screen the host keeps, not the output, and the lines its chats have not read.
 */
export function headlessControllerOptions(
  dataDir: string,
  record: { sessionHost: { socket: string } | null; linesRead: number },
  client: ClientKind,
  control: Hello['control'],
  clock: Clock,
): ConnectOptions {
  const socket = record.sessionHost!.socket;
  return {
    dataDir,
    socket,
    client,
    control,
    output: false,
    screens: true,
    drives: true,
    linesAfter: record.linesRead,
    clock,
  };
}

let wsClient: Promise<typeof WsModule> | null = null;

/**
 * The WebSocket client, loaded at the first connection to a host (~15 ms): `run` asks for it as it sends its
 * host the launch, so it loads while the host spawns the agent rather than before the launch goes.
 */
export function loadHostClient(): Promise<typeof WsModule> {
  wsClient ??= import('ws');
  return wsClient;
}

/**
 * One client's connection to a session host (host-wire.ts): the hello with the host's secret, the welcome
 * (what the session is, its screen, whether this client controls it), then output, frames and requests.
 */
export class HostConnection {
  private readonly frameListeners: Array<(frame: HostFrame) => void> = [];
  private readonly outputListeners: Array<(chunk: Buffer) => void> = [];
  private readonly closeListeners: Array<() => void> = [];
  private readonly replies = new Map<number, (reply: Reply) => void>();
  private nextRequest = 1;
  private closedByUs = false;
  /** What came before start(): kept, so nothing sent right after the welcome reaches no one. */
  private held: Array<() => void> | null = [];

  private constructor(
    private readonly socket: WebSocket,
    readonly welcome: Welcome,
    /** The host reads the screen for this client (it asked, and the host speaks protocol 2). */
    readonly screens: boolean,
  ) {}

  static async open(options: ConnectOptions): Promise<HostConnection> {
    const host = trustedHost(options.dataDir, options.socket);
    if (!host)
      throw new HostUnavailable(
        `the session's host socket ${options.socket} is gone or not to be trusted (not a private socket of yours in ${options.dataDir})`,
      );
    const { default: WebSocketClient } = await loadHostClient();
    const socket = new WebSocketClient(`ws+unix://${host.socket}:/`, { maxPayload: FRAME_LIMIT });
    const hello: Hello = {
      type: 'hello',
      protocol: PROTOCOL,
      secret: host.secret,
      client: options.client,
      control: options.control ?? 'no',
      drives: options.drives ?? false,
      output: options.output ?? true,
      screens: options.screens ?? false,
      direct: options.direct ?? false,
      watch: options.watch ?? false,
      ...(options.size ? { size: options.size } : {}),
      ...(options.linesAfter !== undefined ? { linesAfter: options.linesAfter } : {}),
    };
    return new Promise((resolve, reject) => {
      let connection: HostConnection | null = null;
      const timer = options.clock.after(WELCOME_TIMEOUT_MS, () => {
        socket.terminate();
        reject(new HostUnavailable('the session host did not answer (within 10 s)'));
      });
      socket.on('open', () => socket.send(JSON.stringify(hello)));
      socket.on('error', (error) => {
        timer.cancel();
        reject(new HostUnavailable(`cannot reach the session host: ${error.message}`));
      });
      socket.on('message', (data, isBinary) => {
        if (connection) return connection.receive(data, isBinary);
        if (isBinary) return;
        const frame = parseHostFrame(String(data));
        if (frame?.type === 'refused') {
          timer.cancel();
          socket.close();
          return reject(new HostUnavailable(frame.reason));
        }
        if (frame?.type !== 'welcome') return;
        timer.cancel();
        const problem = versionProblem(frame);
        if (problem) {
          socket.close();
          return reject(new HostUnavailable(problem));
        }
        const screens = Boolean(options.screens) && frame.protocol >= SCREENS_PROTOCOL && !!frame.state;
        connection = new HostConnection(socket, frame, screens);
        resolve(connection);
      });
      socket.on('close', () => {
        timer.cancel();
        if (!connection) reject(new HostUnavailable('the session host closed the connection'));
        else connection.closed();
      });
    });
  }

  get pid(): number {
    return this.welcome.pid;
  }

  get open(): boolean {
    return this.socket.readyState === this.socket.OPEN;
  }

  onFrame(listener: (frame: HostFrame) => void): void {
    this.frameListeners.push(listener);
  }

  onOutput(listener: (chunk: Buffer) => void): void {
    this.outputListeners.push(listener);
  }

  /** The connection ended without this side closing it: the host is gone (or let this client go). */
  onClose(listener: () => void): void {
    this.closeListeners.push(listener);
  }

  /** Listeners are in place: what arrived since the welcome is delivered now, the rest as it comes. */
  start(): void {
    const held = this.held ?? [];
    this.held = null;
    for (const deliver of held) deliver();
  }

  /** A person's keys. */
  sendInput(data: string | Buffer): void {
    if (this.open) this.socket.send(typeof data === 'string' ? Buffer.from(data) : data, { binary: true });
  }

  send(message: Exclude<ClientRequest, { req: number }>): void {
    if (this.open) this.socket.send(JSON.stringify(message));
  }

  /** A request the host replies to; rejects when it says no, or the connection ends first. */
  request<T extends Extract<ClientRequest, { req: number }>>(message: RequestBody<T>): Promise<Reply> {
    if (!this.open) return Promise.reject(new HostUnavailable('the session host is gone'));
    const req = this.nextRequest++;
    return new Promise((resolve, reject) => {
      this.replies.set(req, (reply) => {
        if (reply.ok) resolve(reply);
        else reject(new Error(reply.error ?? 'the session host refused'));
      });
      this.socket.send(JSON.stringify({ ...message, req }));
    });
  }

  /** Stops reading from the host (a slow terminal here): the host holds the agent's output back. */
  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    this.socket.resume();
  }

  /** Leaves the session to its host (it goes on); a controller should `release` first. */
  close(): void {
    this.closedByUs = true;
    this.socket.close();
  }

  private receive(data: WebSocket.RawData, isBinary: boolean): void {
    if (this.held) return void this.held.push(() => this.receive(data, isBinary));
    if (isBinary) {
      const chunk = toBuffer(data);
      for (const listener of this.outputListeners) listener(chunk);
      return;
    }
    const frame = parseHostFrame(String(data));
    if (!frame) return;
    if (frame.type === 'reply') {
      const settle = this.replies.get(frame.req);
      this.replies.delete(frame.req);
      return settle?.(frame);
    }
    for (const listener of this.frameListeners) listener(frame);
  }

  private closed(): void {
    if (this.held) return void this.held.push(() => this.closed());
    for (const settle of this.replies.values())
      settle({ type: 'reply', req: 0, ok: false, error: 'the session host is gone' });
    this.replies.clear();
    if (this.closedByUs) return;
    for (const listener of this.closeListeners) listener();
  }
}

/** A host older than this agent-bridge can drive: what it runs, and what to do. */
function versionProblem(welcome: Welcome): string | null {
  if (typeof welcome.protocol === 'number' && welcome.protocol >= OLDEST_PROTOCOL) return null;
  const id = welcome.session?.id?.slice(0, 8) ?? '?';
  return `session ${id} runs in a session host of agent-bridge ${welcome.version} (protocol ${welcome.protocol}), older than this agent-bridge can drive (protocol ${OLDEST_PROTOCOL} or newer): use agent-bridge ${welcome.version} to attach to it (npx agent-bridge@${welcome.version} attach ${id}), or end it there`;
}

function toBuffer(data: WebSocket.RawData): Buffer {
  if (Array.isArray(data)) return Buffer.concat(data);
  return data instanceof ArrayBuffer ? Buffer.from(data) : data;
}

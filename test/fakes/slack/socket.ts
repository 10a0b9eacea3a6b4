// Socket Mode: `hello` on connect, envelopes out (events_api, interactive, slash_commands), acks in,
// `disconnect` (refresh_requested) and dropped connections. An envelope waits while no socket is open.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { FakeAck, Json, SocketStats } from './types.js';
import { APP_ID } from './world.js';

export type EnvelopeType = 'events_api' | 'interactive' | 'slash_commands';

export interface Envelope {
  envelope_id: string;
  type: EnvelopeType;
  payload: Json;
  accepts_response_payload: boolean;
  retry_attempt?: number;
  retry_reason?: string;
}

export class SocketServer {
  readonly acks: FakeAck[] = [];
  readonly stats: SocketStats = { opens: 0, connections: 0, open: 0 };
  /** Every envelope sent, by id (to send again, or to see what an ack answered). */
  readonly envelopes = new Map<string, Envelope>();
  private readonly server = new WebSocketServer({ noServer: true });
  private readonly sockets = new Set<WebSocket>();
  private readonly tickets = new Set<string>();
  private readonly waiting: string[] = [];
  private readonly ackListeners = new Set<(ack: FakeAck) => void>();

  constructor(
    private readonly baseUrl: () => string,
    private readonly changed: () => void,
  ) {}

  /** A one-time socket URL (apps.connections.open). */
  url(): string {
    const ticket = randomUUID();
    this.tickets.add(ticket);
    this.stats.opens += 1;
    return `${this.baseUrl().replace(/^http/, 'ws')}/socket?ticket=${ticket}`;
  }

  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const ticket = url.searchParams.get('ticket') ?? '';
    if (url.pathname !== '/socket' || !this.tickets.delete(ticket)) {
      socket.end('HTTP/1.1 401 Unauthorized\r\n\r\n');
      return;
    }
    this.server.handleUpgrade(req, socket, head, (ws) => this.accept(ws));
  }

  private accept(ws: WebSocket): void {
    this.sockets.add(ws);
    this.stats.connections += 1;
    this.stats.open = this.sockets.size;
    ws.on('message', (data, isBinary) => this.onFrame(String(data), isBinary));
    ws.on('close', () => {
      this.sockets.delete(ws);
      this.stats.open = this.sockets.size;
      this.changed();
    });
    ws.on('error', () => undefined);
    ws.send(
      JSON.stringify({
        type: 'hello',
        num_connections: this.sockets.size,
        debug_info: { host: 'fake-slack', build_number: 1, approximate_connection_time: 18_060 },
        connection_info: { app_id: APP_ID },
      }),
    );
    for (const id of this.waiting.splice(0)) this.transmit(this.envelopes.get(id)!);
    this.changed();
  }

  private onFrame(text: string, isBinary: boolean): void {
    if (isBinary) return;
    let frame: unknown;
    try {
      frame = JSON.parse(text);
    } catch {
      return;
    }
    const { envelope_id: id, payload } = (frame ?? {}) as { envelope_id?: unknown; payload?: unknown };
    if (typeof id !== 'string') return;
    const ack: FakeAck = {
      envelopeId: id,
      ...(payload && typeof payload === 'object' && Object.keys(payload).length > 0
        ? { payload: payload as Json }
        : {}),
      at: Date.now(),
    };
    this.acks.push(ack);
    for (const listener of [...this.ackListeners]) listener(ack);
    this.changed();
  }

  onAck(listener: (ack: FakeAck) => void): () => void {
    this.ackListeners.add(listener);
    return () => this.ackListeners.delete(listener);
  }

  /** Sends an envelope to one open socket (the newest), or keeps it until one opens; returns its id. */
  send(type: EnvelopeType, payload: Json): string {
    const envelope: Envelope = {
      envelope_id: randomUUID(),
      type,
      payload,
      accepts_response_payload: type !== 'events_api',
      ...(type === 'events_api' ? { retry_attempt: 0, retry_reason: '' } : {}),
    };
    this.envelopes.set(envelope.envelope_id, envelope);
    if (!this.transmit(envelope)) this.waiting.push(envelope.envelope_id);
    return envelope.envelope_id;
  }

  /** The same envelope again, as Slack does when it thinks an event was lost. */
  resend(id: string): void {
    const envelope = this.envelopes.get(id);
    if (!envelope) throw new Error(`no envelope ${id}`);
    envelope.retry_attempt = (envelope.retry_attempt ?? 0) + 1;
    envelope.retry_reason = 'timeout';
    if (!this.transmit(envelope)) this.waiting.push(id);
  }

  /** Any text frame, as given, to every open socket. */
  raw(text: string): void {
    for (const ws of this.sockets) ws.send(text);
  }

  /** `disconnect` with a reason (`refresh_requested`, `warning`, `link_disabled`): the client reconnects. */
  requestDisconnect(reason = 'refresh_requested'): void {
    this.raw(JSON.stringify({ type: 'disconnect', reason, debug_info: { host: 'fake-slack' } }));
  }

  /** Cuts every socket without a close frame. */
  drop(): void {
    for (const ws of this.sockets) ws.terminate();
  }

  close(): void {
    for (const ws of this.sockets) ws.terminate();
    this.server.close();
  }

  private transmit(envelope: Envelope): boolean {
    const open = [...this.sockets].filter((ws) => ws.readyState === ws.OPEN);
    const ws = open.at(-1);
    if (!ws) return false;
    ws.send(JSON.stringify(envelope));
    return true;
  }
}

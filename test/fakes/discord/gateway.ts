// The gateway WebSocket: HELLO, IDENTIFY → READY + GUILD_CREATE, heartbeats, RESUME with replay, dispatches.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { gatewayUrl } from './rest-channels.js';
import { guildCreateWire, userWire } from './serialize.js';
import type { GatewayStats, Json } from './types.js';
import type { World } from './world.js';

const HEARTBEAT_INTERVAL_MS = 41_250;
/** Dispatches kept per session for RESUME; an older sequence gets INVALID_SESSION. */
const REPLAY_LIMIT = 1_000;
const GUILDS = 1 << 0;
const GUILD_MESSAGES = 1 << 9;
const DIRECT_MESSAGES = 1 << 12;
const MESSAGE_CONTENT = 1 << 15;

interface Frame {
  op: 0;
  t: string;
  s: number;
  d: unknown;
}

class Session {
  seq = 0;
  socket: WebSocket | undefined;
  /** READY or RESUMED went out on `socket`: dispatches flow. */
  live = false;
  readonly buffer: Frame[] = [];

  constructor(
    readonly id: string,
    readonly intents: number,
  ) {}

  push(t: string, d: unknown): void {
    const frame: Frame = { op: 0, t, s: ++this.seq, d };
    this.buffer.push(frame);
    if (this.buffer.length > REPLAY_LIMIT) this.buffer.shift();
    if (this.live && this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(frame));
  }
}

function requiredIntent(event: string, data: Json): number | undefined {
  if (/^(GUILD|CHANNEL|THREAD)_/.test(event)) return GUILDS;
  if (/^MESSAGE_(CREATE|UPDATE|DELETE)/.test(event))
    return 'guild_id' in data ? GUILD_MESSAGES : DIRECT_MESSAGES;
  return undefined;
}

/** Without MESSAGE_CONTENT, guild messages arrive blank unless the bot wrote them or is mentioned. */
function forIntents(event: string, data: Json, intents: number, botId: string): Json {
  if (event !== 'MESSAGE_CREATE' && event !== 'MESSAGE_UPDATE') return data;
  if (intents & MESSAGE_CONTENT || !('guild_id' in data)) return data;
  const author = data['author'] as Json | undefined;
  const mentions = (data['mentions'] ?? []) as Json[];
  if (author?.['id'] === botId || mentions.some((user) => user['id'] === botId)) return data;
  return { ...data, content: '', embeds: [], attachments: [], components: [] };
}

export class Gateway {
  readonly stats: GatewayStats = { identifies: 0, resumes: 0, connections: 0 };
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly sessions = new Map<string, Session>();
  private readonly sockets = new Set<WebSocket>();

  constructor(
    private readonly token: string,
    private readonly world: World,
  ) {}

  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    if (path !== '/gateway' && path !== '/resume-gateway') {
      socket.destroy();
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws));
  }

  /** To every session whose intents allow it (`raw`: as given, to all); buffered for replay. */
  dispatch(event: string, data: Json, raw = false): void {
    for (const session of this.sessions.values()) {
      const needed = requiredIntent(event, data);
      if (!raw && needed !== undefined && !(session.intents & needed)) continue;
      session.push(event, raw ? data : forIntents(event, data, session.intents, this.world.bot.id));
    }
  }

  /** Closes every gateway socket (1006: cut without a close frame); sessions stay resumable unless `invalidate`. */
  drop(code: number, invalidate: boolean): void {
    if (invalidate) this.sessions.clear();
    for (const ws of this.sockets) {
      if (code === 1006) ws.terminate();
      else ws.close(code, 'Dropped by the fake Discord');
    }
  }

  isReady(): boolean {
    return [...this.sessions.values()].some((s) => s.live && s.socket?.readyState === WebSocket.OPEN);
  }

  close(): void {
    for (const ws of this.sockets) ws.terminate();
    this.wss.close();
  }

  private accept(ws: WebSocket): void {
    this.stats.connections += 1;
    this.sockets.add(ws);
    let session: Session | undefined;
    ws.send(JSON.stringify({ op: 10, d: { heartbeat_interval: HEARTBEAT_INTERVAL_MS }, s: null, t: null }));
    ws.on('message', (raw) => {
      let payload: Json;
      try {
        payload = JSON.parse(String(raw)) as Json;
      } catch {
        ws.close(4002, 'Error while decoding payload.');
        return;
      }
      const d = (payload['d'] ?? {}) as Json;
      if (payload['op'] === 1) ws.send(JSON.stringify({ op: 11, d: null, s: null, t: null }));
      else if (payload['op'] === 2) session = this.identify(ws, session, d);
      else if (payload['op'] === 6) session = this.resume(ws, session, d);
      else if ([3, 4, 8].includes(Number(payload['op']))) {
        if (!session) ws.close(4003, 'Not authenticated.');
      } else ws.close(4001, 'Unknown opcode.');
    });
    ws.on('close', (code) => {
      this.sockets.delete(ws);
      if (session?.socket !== ws) return;
      session.socket = undefined;
      session.live = false;
      // A clean close by the client (1000/1001) ends the session, as on Discord.
      if (code === 1000 || code === 1001) this.sessions.delete(session.id);
      this.world.changed();
    });
    ws.on('error', () => undefined);
  }

  private identify(ws: WebSocket, current: Session | undefined, d: Json): Session | undefined {
    if (current) {
      ws.close(4005, 'Already authenticated.');
      return current;
    }
    if (String(d['token'] ?? '').replace(/^Bot /, '') !== this.token) {
      ws.close(4004, 'Authentication failed.');
      return undefined;
    }
    this.stats.identifies += 1;
    const session = new Session(randomBytes(16).toString('hex'), Number(d['intents'] ?? 0));
    this.sessions.set(session.id, session);
    session.socket = ws;
    session.live = true;
    session.push('READY', this.ready(session, d['shard']));
    if (session.intents & GUILDS) session.push('GUILD_CREATE', guildCreateWire(this.world));
    this.world.changed();
    return session;
  }

  private ready(session: Session, shard: unknown): Json {
    const { world } = this;
    return {
      v: 10,
      user: { ...userWire(world.bot), verified: true, mfa_enabled: false, email: null },
      user_settings: {},
      guilds: [{ id: world.guild.id, unavailable: true }],
      guild_join_requests: [],
      relationships: [],
      private_channels: [],
      presences: [],
      session_id: session.id,
      session_type: 'normal',
      resume_gateway_url: gatewayUrl(world, '/resume-gateway'),
      shard: Array.isArray(shard) ? shard : [0, 1],
      application: { id: world.applicationId, flags: 0 },
      geo_ordered_rtc_regions: [],
      auth: {},
    };
  }

  /** Replays what the client missed (seq > its seq), then RESUMED; unknown session → op 9 (d: false). */
  private resume(ws: WebSocket, current: Session | undefined, d: Json): Session | undefined {
    if (current) {
      ws.close(4005, 'Already authenticated.');
      return current;
    }
    const session = this.sessions.get(String(d['session_id'] ?? ''));
    const seq = Number(d['seq'] ?? 0);
    const oldest = session?.buffer[0]?.s ?? (session ? session.seq + 1 : 0);
    // A sequence older than the replay buffer (or from the future) cannot be resumed.
    if (!session || String(d['token'] ?? '') !== this.token || seq + 1 < oldest || seq > session.seq) {
      if (session) this.sessions.delete(session.id);
      ws.send(JSON.stringify({ op: 9, d: false, s: null, t: null }));
      return undefined;
    }
    this.stats.resumes += 1;
    if (session.socket && session.socket !== ws) session.socket.terminate();
    session.socket = ws;
    for (const frame of session.buffer) if (frame.s > seq) ws.send(JSON.stringify(frame));
    session.live = true;
    // No sequence number: discord.js then reports exactly the replayed count in `shardResume`.
    ws.send(JSON.stringify({ op: 0, t: 'RESUMED', s: null, d: {} }));
    this.world.changed();
    return session;
  }
}

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { startWebServer } from '../../src/channels/web/web-server.js';
import { systemClock, type Clock } from '../../src/core/clock.js';
import { LiveSessions } from '../../src/sessions/live-sessions.js';
import { SessionsWebBackend } from '../../src/sessions/web-backend.js';
import { openStore, type Store } from '../../src/store/store.js';
import { rawRequest, type RawExchange } from './raw-http.js';
import { endSessionHosts } from './session-hosts.js';

export const WEB_TOKEN = 'test-token-1234567890abcdef';

export interface TerminalClient {
  ws: WebSocket;
  /** Text frames, parsed. */
  json: Array<Record<string, unknown>>;
  /** Binary frames (the program's output) as text. */
  output: string;
  send(frame: object): void;
  opened: Promise<void>;
}

/** The web server on 127.0.0.1 over a real store and sessions backend, with a small built app shell. */
export class WebWorld {
  readonly dir = mkdtempSync(path.join(tmpdir(), 'ab-websec-'));
  readonly store: Store;
  readonly live = new LiveSessions();
  /** What the server said in its log (serve's). */
  readonly logged: string[] = [];
  private readonly watchStore: Store;
  readonly backend: SessionsWebBackend;
  private server: { url: string; close(): Promise<void> } | null = null;

  constructor(private readonly clock: Clock = systemClock) {
    process.env.AGENT_BRIDGE_HOME = path.join(this.dir, 'data');
    this.store = openStore({ dir: path.join(this.dir, 'data') });
    this.watchStore = openStore({ dir: path.join(this.dir, 'data') });
    this.backend = new SessionsWebBackend({
      store: this.store,
      watchStore: this.watchStore,
      clock,
      live: this.live,
      version: '0.0.0',
      cwd: this.dir,
    });
  }

  async start(listen: { host?: string } = {}): Promise<this> {
    const app = path.join(this.dir, 'app');
    mkdirSync(app);
    writeFileSync(path.join(app, 'index.html'), '<!doctype html><title>agent-bridge</title>');
    writeFileSync(path.join(app, 'app.js'), 'console.log("app")');
    this.server = await startWebServer({
      backend: this.backend,
      token: WEB_TOKEN,
      host: listen.host ?? '127.0.0.1',
      port: 0,
      clock: this.clock,
      staticDir: app,
      log: (line) => this.logged.push(line),
    });
    return this;
  }

  get url(): string {
    return this.server!.url;
  }

  get port(): number {
    return Number(new URL(this.url).port);
  }

  /** The Host header a browser sends for the printed address. */
  get host(): string {
    return new URL(this.url).host;
  }

  /** An API call with the token, as a script sends it. */
  api(route: string, init: RequestInit = {}): Promise<Response> {
    return fetch(`${this.url}${route}`, {
      ...init,
      headers: {
        authorization: `Bearer ${WEB_TOKEN}`,
        ...(init.body ? { 'content-type': 'application/json' } : {}),
        ...(init.headers ?? {}),
      },
    });
  }

  /** A JSON POST written byte for byte, as an attacker would (raw-http.ts), with the headers given. */
  rawPost(target: string, body: string, headers: string[], host = this.host): Promise<RawExchange> {
    return rawRequest(
      this.port,
      [
        `POST ${target} HTTP/1.1`,
        `Host: ${host}`,
        'Connection: close',
        'Content-Type: application/json',
        `Content-Length: ${Buffer.byteLength(body)}`,
        ...headers,
      ].join('\r\n'),
      body,
    );
  }

  async json<T>(route: string, init: RequestInit = {}): Promise<T> {
    const response = await this.api(route, init);
    if (!response.ok) throw new Error(`${route}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  }

  /** A live terminal's WebSocket, as the page opens it (token and the page's own Origin), and its frames. */
  terminal(id: string, query = ''): TerminalClient {
    const ws = new WebSocket(`${this.url.replace('http', 'ws')}/ws/terminal/${id}${query}`, {
      headers: { authorization: `Bearer ${WEB_TOKEN}`, origin: this.url },
    });
    const client: TerminalClient = {
      ws,
      json: [],
      output: '',
      send: (frame) => ws.send(JSON.stringify(frame)),
      opened: new Promise((resolve) => ws.once('open', () => resolve())),
    };
    ws.on('message', (data, isBinary) => {
      if (isBinary) client.output += String(data);
      else client.json.push(JSON.parse(String(data)) as Record<string, unknown>);
    });
    return client;
  }

  auditOf(event: string): Array<Record<string, unknown>> {
    const rows = this.store.db
      .prepare('SELECT line FROM audit_events WHERE event = ? ORDER BY seq')
      .all(event) as Array<{ line: string }>;
    return rows.map((row) => JSON.parse(row.line) as Record<string, unknown>);
  }

  async closeServer(): Promise<void> {
    await this.server?.close();
    this.server = null;
  }

  /** A bash started from the web (POST /api/sessions), as the page starts one: its session id. */
  async startShell(): Promise<string> {
    const { id } = await this.json<{ id: string }>('/api/sessions', {
      method: 'POST',
      body: JSON.stringify({ agent: 'custom', cwd: this.dir, args: ['bash', '--norc', '--noprofile', '-i'] }),
    });
    return id;
  }

  async close(): Promise<void> {
    await Promise.all(this.live.all().map((s) => s.stop()));
    await this.closeServer();
    this.backend.close();
    this.store.close();
    this.watchStore.close();
    // A session serve let go still runs in its host: ended by the pids its store names, before the store goes.
    await endSessionHosts(path.join(this.dir, 'data'));
    rmSync(this.dir, { recursive: true, force: true });
  }
}

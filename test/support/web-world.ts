import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startWebServer } from '../../src/channels/web/web-server.js';
import { systemClock, type Clock } from '../../src/core/clock.js';
import { LiveSessions } from '../../src/sessions/live-sessions.js';
import { SessionsWebBackend } from '../../src/sessions/web-backend.js';
import { openStore, type Store } from '../../src/store/store.js';

export const WEB_TOKEN = 'test-token-1234567890abcdef';

/** The web server on 127.0.0.1 over a real store and sessions backend, with a small built app shell. */
export class WebWorld {
  readonly dir = mkdtempSync(path.join(tmpdir(), 'ab-websec-'));
  readonly store: Store;
  readonly live = new LiveSessions();
  private readonly watchStore: Store;
  private readonly backend: SessionsWebBackend;
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

  async close(): Promise<void> {
    await Promise.all(this.live.all().map((s) => s.stop()));
    await this.closeServer();
    this.backend.close();
    this.store.close();
    this.watchStore.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Page, Route, WebSocketRoute } from 'playwright-core';
import type { ToolCard, WebRecording, WebSession } from '../../src/channels/web/backend.js';
import type { ConversationFrame } from '../../src/channels/web/conversation-types.js';
import type { FolderListing } from '../../src/channels/web/file-views.js';

/**
 * The web app from its sources (web/src, bundled in memory by esbuild: no build of dist/ needed) in a page
 * whose server is scripted: the API's answers and the WebSockets are Playwright routes. For what a real
 * server cannot easily be made to show (a session on another machine of a cluster, a socket that keeps
 * dropping, a list that arrives before the configuration).
 */

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);

/** Where the page is (never resolved: every request is answered by a route). */
export const MOCK_ORIGIN = 'http://agent-bridge.test';

interface Asset {
  body: string;
  type: string;
}

let assets: Promise<Map<string, Asset>> | null = null;

/** The app's files, bundled once per test file. */
function appAssets(): Promise<Map<string, Asset>> {
  assets ??= (async () => {
    const common = { bundle: true, write: false, target: 'es2022', logLevel: 'warning' } as const;
    const [js, css] = await Promise.all([
      build({
        ...common,
        entryPoints: [path.join(root, 'web/src/main.ts')],
        platform: 'browser',
        format: 'esm',
        tsconfig: path.join(root, 'web/tsconfig.json'),
      }),
      build({ ...common, entryPoints: [path.join(root, 'web/src/styles/index.css')] }),
    ]);
    const text = (file: string) => readFileSync(file, 'utf8');
    return new Map<string, Asset>([
      ['/', { body: text(path.join(root, 'web/public/index.html')), type: 'text/html' }],
      ['/app.js', { body: js.outputFiles[0]!.text, type: 'text/javascript' }],
      ['/styles.css', { body: css.outputFiles[0]!.text, type: 'text/css' }],
      [
        '/xterm.css',
        { body: text(require.resolve('@xterm/xterm/css/xterm.css', { paths: [root] })), type: 'text/css' },
      ],
      ['/icon.svg', { body: text(path.join(root, 'web/public/icon.svg')), type: 'image/svg+xml' }],
    ]);
  })();
  return assets;
}

/** A session as /api/sessions lists it: a shell running here, unless `patch` says otherwise. */
export function mockSession(patch: Partial<WebSession> = {}): WebSession {
  return {
    id: 'aaaa1111-2222-3333-4444-555566667777',
    agent: 'shell',
    name: 'shell in project',
    customName: null,
    firstPrompt: null,
    label: 'shell',
    cwd: '/home/me/project',
    host: 'laptop',
    state: 'running',
    startedAt: new Date().toISOString(),
    ended: null,
    pendingPrompts: 0,
    runsIn: 'serve',
    live: true,
    conversation: false,
    canType: true,
    canStop: true,
    canRestart: true,
    canResume: false,
    recording: null,
    ...patch,
  };
}

/** A session that runs on node-b, a node of this hub's cluster: listed, stoppable, its terminal not here. */
export function nodeSession(patch: Partial<WebSession> = {}): WebSession {
  return mockSession({
    host: 'node-b',
    state: 'waiting',
    pendingPrompts: 1,
    runsIn: 'elsewhere',
    live: false,
    canType: false,
    canStop: true,
    canRestart: false,
    ...patch,
  });
}

/** A terminal socket that shows its screen at once (the page is then "live"). */
export function liveTerminal(ws: WebSocketRoute): void {
  ws.send(JSON.stringify({ type: 'hello', cols: 80, rows: 24, canType: true }));
  ws.send(JSON.stringify({ type: 'screen', data: '$ ' }));
}

/** A conversation socket that sends its (empty) history at once (the page is then "live"). */
export function liveConversation(ws: WebSocketRoute, sessionId: string): void {
  const history: ConversationFrame = {
    type: 'history',
    sessionId,
    entries: [],
    dropped: 0,
    state: 'idle',
    usage: null,
    exit: null,
    canSend: true,
  };
  ws.send(JSON.stringify(history));
}

export class MockServer {
  sessions: WebSession[] = [];
  config: {
    host: string;
    version: string;
    cwd: string;
    agents: ToolCard[];
    nodes?: Array<{ name: string; online: boolean; agents: string[] }>;
  } = { host: 'laptop', version: '0.0.0', cwd: '/home/me/project', agents: [] };
  /** What POST /api/sessions (start) answers. */
  started: WebSession | null = null;
  /** The API calls other than GETs of the lists, as "POST /api/sessions/<id>/stop". */
  readonly calls: string[] = [];
  readonly terminals: WebSocketRoute[] = [];
  readonly events: WebSocketRoute[] = [];
  readonly conversations: WebSocketRoute[] = [];
  /** What a new conversation socket does (by default: sends an empty history). */
  onConversation: (ws: WebSocketRoute) => void = (ws) =>
    liveConversation(ws, decodeURIComponent(ws.url().split('/').pop() ?? ''));
  /** GET /api/recordings; GET /api/recordings/<id> answers `casts[id]` (an asciicast's text). */
  recordings: WebRecording[] = [];
  casts: Record<string, string> = {};
  /** What a new terminal socket does (by default: shows its screen). */
  onTerminal: (ws: WebSocketRoute) => void = liveTerminal;
  listing: FolderListing = { path: '', entries: [], truncated: false };
  private configGate: Promise<void> = Promise.resolve();
  private releaseConfig: () => void = () => {};

  /** Holds /api/config back until `releaseConfigNow()`. */
  holdConfig(): void {
    this.configGate = new Promise((resolve) => (this.releaseConfig = resolve));
  }

  releaseConfigNow(): void {
    this.releaseConfig();
  }

  /** Routes the page's requests and sockets here, then opens the app at `hash`. */
  async open(page: Page, hash = '#/'): Promise<void> {
    const files = await appAssets();
    await page.route(`${MOCK_ORIGIN}/**`, (route) => this.answer(route, files));
    await page.routeWebSocket(/\/ws\/events$/, (ws) => {
      this.events.push(ws);
    });
    await page.routeWebSocket(/\/ws\/terminal\//, (ws) => {
      this.terminals.push(ws);
      this.onTerminal(ws);
    });
    await page.routeWebSocket(/\/ws\/conversation\//, (ws) => {
      this.conversations.push(ws);
      this.onConversation(ws);
    });
    await page.goto(`${MOCK_ORIGIN}/${hash}`);
  }

  private async answer(route: Route, files: Map<string, Asset>): Promise<void> {
    const request = route.request();
    const url = new URL(request.url());
    const file = files.get(url.pathname);
    if (file) return route.fulfill({ status: 200, contentType: file.type, body: file.body });
    const json = (body: unknown, status = 200) =>
      route.fulfill({ status, contentType: 'application/json', body: JSON.stringify(body) });
    const method = request.method();
    if (method !== 'GET') this.calls.push(`${method} ${url.pathname}`);
    if (url.pathname === '/api/config') {
      await this.configGate;
      return json(this.config);
    }
    if (url.pathname === '/api/sessions' && method === 'GET') return json(this.sessions);
    if (url.pathname === '/api/sessions' && method === 'POST' && this.started) {
      this.sessions = [...this.sessions, this.started];
      return json(this.started);
    }
    if (url.pathname === '/api/prompts') return json([]);
    if (url.pathname === '/api/recordings') return json(this.recordings);
    const cast = /^\/api\/recordings\/([^/]+)$/.exec(url.pathname);
    const castText = cast && this.casts[decodeURIComponent(cast[1]!)];
    if (castText !== null && castText !== undefined)
      return route.fulfill({ status: 200, contentType: 'text/plain', body: castText });
    const action = /^\/api\/sessions\/([^/]+)\/(stop|restart|files|changes)$/.exec(url.pathname);
    const session = action && this.sessions.find((s) => s.id === decodeURIComponent(action[1]!));
    if (action && session) {
      if (action[2] === 'stop') return json({ ok: true });
      if (action[2] === 'restart') return json({ ...session, id: `${session.id.slice(0, -4)}9999` });
      if (action[2] === 'files') return json(this.listing);
      return json({ repository: false, files: [], diff: '', truncated: false });
    }
    return json({ error: 'not found' }, 404);
  }
}

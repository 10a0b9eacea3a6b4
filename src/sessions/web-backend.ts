import { existsSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { currentDiscoveryEnv } from '../agents/discovery.js';
import { discoverAll, getAgent, resolveLaunch } from '../agents/registry.js';
import type {
  AnswerResult,
  TerminalAttachment,
  TerminalViewer,
  ToolCard,
  WebBackend,
  WebEvent,
  WebSession,
} from '../channels/web/backend.js';
import type { Clock } from '../core/clock.js';
import type { HookReceiver } from '../drivers/hooks/hook-receiver.js';
import { recordingsDir } from '../store/paths.js';
import { listRecordings } from '../store/recordings.js';
import type { SessionRecord } from '../store/session-store.js';
import type { Store } from '../store/store.js';
import { AgentSession, BACKGROUND_SESSION } from './agent-session.js';
import { answerPrompt } from './answer-prompt.js';
import type { LiveSessions } from './live-sessions.js';
import { promptView } from './prompt-view.js';
import { StoreWatcher } from './store-watcher.js';
import { ViewerHub } from './viewer-hub.js';

const STOPPING = 'agent-bridge is stopping: start it again once serve is back';

export interface WebBackendOptions {
  store: Store;
  /** A second connection to the same database, to notice what this process's sessions write. */
  watchStore: Store;
  clock: Clock;
  live: LiveSessions;
  hooks?: HookReceiver;
  version: string;
  cwd: string;
}

/** The web channel's view of agent-bridge: sessions (started from the page too), prompts, recordings, live terminals. */
/** The newest recordings the web UI lists (reading a thousand headers would stall the page). */
const RECORDINGS_PAGE = 200;

export class SessionsWebBackend implements WebBackend {
  readonly host = hostname();
  private readonly listeners = new Set<(event: WebEvent) => void>();
  private readonly started = new Map<string, { agent: string; cwd: string; args: string[] }>();
  private knownPrompts = new Set<string>();
  private readonly watcher: StoreWatcher;
  private readonly hubs = new Map<string, ViewerHub>();
  private closed = false;

  constructor(private readonly options: WebBackendOptions) {
    this.watcher = new StoreWatcher(options.watchStore, options.clock, () => this.changed());
    this.watcher.start();
    options.live.onChange(() => this.changed());
    this.knownPrompts = new Set(options.store.prompts.open().map((p) => p.id));
  }

  get version(): string {
    return this.options.version;
  }

  get cwd(): string {
    return this.options.cwd;
  }

  /** Stopping: no new session from the page from now on. */
  close(): void {
    this.closed = true;
    this.watcher.stop();
  }

  async tools(): Promise<ToolCard[]> {
    const found = await discoverAll(currentDiscoveryEnv());
    return found.map(({ spec, discovered }) => ({
      id: spec.id,
      name: spec.displayName,
      description: spec.description,
      found: discovered.found,
      path: discovered.found ? discovered.command : null,
      installHint: spec.installHint,
      canSkipPermissions: Boolean(spec.skipPermissionsFlag),
      canResume: Boolean(spec.resumeArgs),
    }));
  }

  sessions(): WebSession[] {
    const { store, live } = this.options;
    const open = store.prompts.open();
    return store.sessions
      .list()
      .map((record) =>
        this.view(record, open.filter((p) => p.sessionId === record.id).length, live.get(record.id)),
      );
  }

  async start(request: { agent: string; cwd: string; args?: string[] }, who: string): Promise<WebSession> {
    if (this.closed) throw new Error(STOPPING);
    const spec = getAgent(request.agent);
    const cwd = path.resolve(request.cwd);
    if (!existsSync(cwd) || !statSync(cwd).isDirectory())
      throw new Error(`${cwd} is not a folder on this machine`);
    const launch = await resolveLaunch(spec, { extraArgs: request.args ?? [] }, currentDiscoveryEnv());
    if (!launch.discovered.found)
      throw new Error(`${spec.displayName} is not installed: ${spec.installHint}`);
    const { store, clock, hooks } = this.options;
    const session = await AgentSession.start({
      spec,
      command: launch.command,
      args: launch.args,
      cwd,
      ...BACKGROUND_SESSION,
      store,
      clock,
      startedBy: who,
      ...(hooks ? { hooks } : {}),
    });
    // Stopping began while it started: it would outlive the shutdown, which has already listed the sessions.
    if (this.closed) {
      const exit = await session.terminal.stop();
      await session.finish(exit, 'terminated', { reason: STOPPING }).catch(() => undefined);
      throw new Error(STOPPING);
    }
    this.started.set(session.id, { agent: spec.id, cwd, args: request.args ?? [] });
    void session.exited.then((exit) =>
      session.finish(exit, exit.exitCode === 0 ? 'completed' : 'crashed').catch(() => undefined),
    );
    this.options.live.add(session);
    return this.view(store.sessions.get(session.id)!, 0, session);
  }

  async stop(id: string): Promise<boolean> {
    const session = this.options.live.get(id);
    if (!session) return false;
    await session.terminal.stop();
    return true;
  }

  async restart(id: string, who: string): Promise<WebSession | null> {
    const how = this.started.get(id);
    if (!how || !(await this.stop(id))) return null;
    return this.start(how, who);
  }

  prompts() {
    const { store } = this.options;
    return store.prompts
      .open()
      .map((record) => ({ id: record.id, ...promptView(record, store.sessions.get(record.sessionId)) }));
  }

  answer(promptId: string, answer: string, who: string): AnswerResult {
    const outcome = answerPrompt(this.options.store, { promptRef: promptId, raw: answer, decidedBy: who });
    if (outcome.ok) {
      this.options.live.get(outcome.record.sessionId)?.poke();
      return { ok: true, summary: outcome.summary };
    }
    const status =
      outcome.code === 'not_found'
        ? 404
        : outcome.code === 'bad_reply' || outcome.code === 'ambiguous'
          ? 400
          : 409;
    return { ok: false, status, error: outcome.reason };
  }

  async recordings() {
    const { recordings } = await listRecordings(recordingsDir(), { limit: RECORDINGS_PAGE });
    return recordings.map((r) => ({
      id: r.id,
      startedAt: r.startedAt,
      durationSeconds: r.durationSeconds,
      bytes: r.bytes,
      command: r.command,
      title: r.title,
    }));
  }

  recordingFile(id: string): string | null {
    if (!/^[\w.-]+$/.test(id) || id.includes('..')) return null;
    const dir = recordingsDir();
    const file = path.resolve(dir, `${id}.cast`);
    return path.dirname(file) === dir && existsSync(file) ? file : null;
  }

  async attach(sessionId: string, viewer: TerminalViewer): Promise<TerminalAttachment | null> {
    const session = this.options.live.get(sessionId);
    if (!session) return null;
    const terminal = session.terminal;
    const redraw = async () => {
      await terminal.screen.catchUp();
      // Output still gathered for the viewers is in this screen already: it goes out first (and is skipped by
      // the viewer being redrawn), never again after the screen.
      this.hubs.get(sessionId)?.flush();
      return terminal.screen.serialize();
    };
    const screen = await redraw();
    let hub = this.hubs.get(sessionId);
    if (!hub) {
      hub = new ViewerHub(terminal, () => this.hubs.delete(sessionId));
      this.hubs.set(sessionId, hub);
    }
    const { cols, rows } = terminal.pty.size;
    return {
      cols,
      rows,
      screen,
      redraw,
      input: (data) => terminal.userInput(data),
      resize: (c, r) => session.resize(c, r),
      detach: hub.add(viewer),
    };
  }

  onEvent(listener: (event: WebEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  unauthorized(details: Record<string, string | number>): void {
    this.options.store.audit.record('UNAUTHORIZED', details);
  }

  private changed(): void {
    const prompts = this.prompts();
    const fresh = prompts.filter((p) => !this.knownPrompts.has(p.id));
    this.knownPrompts = new Set(prompts.map((p) => p.id));
    this.emit({ type: 'sessions' });
    this.emit({ type: 'prompts' });
    for (const prompt of fresh) this.emit({ type: 'prompt', prompt });
  }

  private emit(event: WebEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  private view(record: SessionRecord, pendingPrompts: number, live: AgentSession | undefined): WebSession {
    const state =
      record.status !== 'active' ? 'exited' : pendingPrompts > 0 ? 'waiting' : live?.isIdle ? 'idle' : 'busy';
    return {
      id: record.id,
      agent: record.agent,
      label: record.label,
      cwd: record.cwd,
      host: record.host,
      state,
      startedAt: new Date(record.startedAt).toISOString(),
      pendingPrompts,
      live: Boolean(live),
      recording: record.recording ? path.basename(record.recording, '.cast') : null,
    };
  }
}

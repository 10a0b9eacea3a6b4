import { existsSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import type { PromptTtls } from '../config/prompt-ttls.js';
import { Readable } from 'node:stream';
import { currentDiscoveryEnv } from '../agents/discovery.js';
import { resolveDriverLaunch } from '../agents/driver-choice.js';
import { agents, discoverAll, getAgent } from '../agents/registry.js';
import { defaultDriver } from '../agents/types.js';
import type { ConversationUpdate, MessageResult } from '../channels/web/conversation-types.js';
import type {
  AnswerResult,
  AttachOptions,
  RecordingStream,
  TerminalAttachment,
  TerminalUpgrade,
  TerminalViewer,
  ToolCard,
  WebBackend,
  WebEvent,
  WebPrompt,
  WebRecording,
  WebSession,
} from '../channels/web/backend.js';
import type { FileAnswer } from '../channels/web/file-views.js';
import type { Clock } from '../core/clock.js';
import { recordingsDir } from '../store/paths.js';
import { listRecordings, openRecording, RecordingAccessError } from '../store/recordings.js';
import type { SessionRecord } from '../store/session-store.js';
import type { Store } from '../store/store.js';
import { AgentSession, BACKGROUND_SESSION, SERVE_HOSTED } from './agent-session.js';
import { answerPrompt } from './answer-prompt.js';
import { Conversations } from './conversations.js';
import { SessionFiles } from './files/session-files.js';
import { firstPromptOf } from './first-prompt.js';
import type { LiveSessions } from './live-sessions.js';
import type { RemoteSessions } from './remote-sessions.js';
import { promptView } from './prompt-view.js';
import { reapIfDead } from './session-liveness.js';
import { trustedHost } from './host/host-files.js';
import { stopHosted, viewHosted } from './host/host-viewer.js';
import { StoreWatcher } from './store-watcher.js';
import { sendTextToSession, textOutcomeNotice } from './typed-text.js';
import { ViewerHub } from './viewer-hub.js';
import { sessionName, webSessionView } from './web-session-view.js';

const STOPPING = 'agent-bridge is stopping: start it again once serve is back';

export interface WebBackendOptions {
  store: Store;
  /** A second connection to the same database, to notice what this process's sessions write. */
  watchStore: Store;
  clock: Clock;
  live: LiveSessions;
  /** Sessions started here get Claude Code's hooks (they post to each session's host, which relays them). */
  hooks?: boolean;
  version: string;
  cwd: string;
  /** Channels that hear what sessions started here say (a cluster node: `hub`); default none. */
  approveFrom?: string[];
  /** A cluster hub: sessions on its nodes, started and stopped from here. */
  remote?: RemoteSessions;
  /** How long each kind of prompt waits in sessions started here (`defaults.prompt_ttl`, as reloaded). */
  promptTtlMs?: () => PromptTtls;
}

/** The newest recordings the web UI lists (reading a thousand headers would stall the page). */
const RECORDINGS_PAGE = 200;

interface Launch {
  agent: string;
  cwd: string;
  args?: string[];
  resume?: string | true;
  /** Another machine of the cluster (a hub's node); default this one. */
  node?: string;
}

/** The web channel's view of agent-bridge: sessions (started from the page too), prompts, recordings, live terminals. */
export class SessionsWebBackend implements WebBackend {
  readonly host = hostname();
  private readonly listeners = new Set<(event: WebEvent) => void>();
  private readonly started = new Map<string, Launch>();
  /** Live sessions whose busy/idle changes are passed on to the page. */
  private readonly watched = new WeakSet<AgentSession>();
  private knownPrompts = new Set<string>();
  private readonly watcher: StoreWatcher;
  private readonly hubs = new Map<string, ViewerHub>();
  /** Hosted sessions whose host sends its output here (for their viewers): asked once, dropped when none watch. */
  private readonly following = new Set<string>();
  private closed = false;
  private readonly files: SessionFiles;
  private readonly conversations: Conversations;

  constructor(private readonly options: WebBackendOptions) {
    this.files = new SessionFiles(options.store);
    this.conversations = new Conversations(options.clock);
    this.watcher = new StoreWatcher(options.watchStore, options.clock, () => this.changed());
    this.watcher.start();
    options.live.onChange(() => {
      this.watchStates();
      this.changed();
    });
    this.watchStates();
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
    const cards = found.map(({ spec, discovered }) => ({
      id: spec.id,
      name: spec.displayName,
      description: spec.description,
      found: discovered.found,
      path: discovered.found ? discovered.command : null,
      installHint: spec.installHint,
      canSkipPermissions: Boolean(spec.skipPermissionsFlag),
      canResume: Boolean(spec.resumeArgs),
    }));
    const custom = agents.custom;
    // Any command line: nothing to discover, the command is typed in its card.
    return [
      ...cards,
      {
        id: custom.id,
        name: custom.displayName,
        description: 'Any command line, in any folder',
        found: true,
        path: null,
        installHint: 'type the command and its arguments',
        canSkipPermissions: false,
        canResume: false,
      },
    ];
  }

  /** Every running session, and the newest ended ones (with their recordings), newest first. */
  sessions(): WebSession[] {
    const { store } = this.options;
    const open = store.prompts.open();
    const records = new Map(store.sessions.list().map((record) => [record.id, record]));
    for (const record of store.sessions.list({ all: true }))
      if (!records.has(record.id)) records.set(record.id, record);
    return [...records.values()]
      .map((record) => this.current(record))
      .sort((a, b) => b.startedAt - a.startedAt)
      .map((record) => this.view(record, open.filter((p) => p.sessionId === record.id).length));
  }

  async start(request: Launch, who: string): Promise<WebSession> {
    if (this.closed) throw new Error(STOPPING);
    if (request.node) return this.startOn(request.node, request, who);
    const spec = getAgent(request.agent);
    const cwd = path.resolve(request.cwd);
    if (!existsSync(cwd) || !statSync(cwd).isDirectory())
      throw new Error(`${cwd} is not a folder on this machine`);
    // The driver `run` and serve's repositories use when none is chosen: an agent with no screen (acp) speaks
    // its protocol, and its session is a conversation on the page.
    const launch = await resolveDriverLaunch(
      spec,
      { extraArgs: request.args ?? [], ...(request.resume ? { resume: request.resume } : {}) },
      currentDiscoveryEnv(),
      defaultDriver(spec),
    );
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
      ...(this.options.promptTtlMs ? { ttlMs: this.options.promptTtlMs() } : {}),
      ...(launch.driver === 'structured'
        ? { structured: typeof request.resume === 'string' ? { resume: request.resume } : {} }
        : // In a session host: a restart of serve neither stops it nor loses its screen.
          { hosted: SERVE_HOSTED, ...(hooks ? { hooks: true as const } : {}) }),
      ...(this.options.approveFrom ? { approveFrom: this.options.approveFrom } : {}),
    });
    // Stopping began while it started: it would outlive the shutdown, which has already listed the sessions.
    if (this.closed) {
      await session.stop({ reason: STOPPING }).catch(() => undefined);
      throw new Error(STOPPING);
    }
    this.started.set(session.id, { agent: spec.id, cwd, args: request.args ?? [] });
    void session.exited.then((exit) => session.finish(exit, session.endStatus(exit)).catch(() => undefined));
    this.options.live.add(session);
    return this.view(store.sessions.get(session.id)!, 0);
  }

  /** The machines of the cluster sessions can be started on (none for one machine alone). */
  async nodes() {
    return (await this.options.remote?.nodes()) ?? [];
  }

  private async startOn(node: string, request: Launch, who: string): Promise<WebSession> {
    const remote = this.options.remote;
    if (!remote) throw new Error(`no machine ${node}: this server is not a cluster hub`);
    const { agent, cwd, args } = request;
    const id = await remote.launch(node, { agent, cwd, ...(args ? { args } : {}) }, who);
    return this.view(this.options.store.sessions.get(id)!, 0);
  }

  async stop(id: string): Promise<boolean> {
    const record = this.options.store.sessions.get(id);
    if (record?.node && record.status === 'active' && this.options.remote) {
      await this.options.remote.stop(record.node, id, 'web');
      return true;
    }
    const session = this.options.live.get(id);
    if (session) {
      await session.stop({ reason: 'stopped from the web UI' });
      return true;
    }
    const socket = record && this.sharedSocket(record);
    return socket ? stopHosted(this.options.store.dir, socket, this.options.clock) : false;
  }

  async restart(id: string, who: string): Promise<WebSession | null> {
    const record = this.options.store.sessions.get(id);
    if (!record) return null;
    const how = this.started.get(id);
    if (record.status === 'active') {
      if (!how || !(await this.stop(id))) return null;
      return this.start(how, who);
    }
    // Ended: the same agent in the same folder (a custom command only with its known arguments).
    if (record.agent === 'custom' && !how) return null;
    return this.start(how ?? { agent: record.agent, cwd: record.cwd }, who);
  }

  async resume(id: string, who: string): Promise<WebSession | null> {
    const record = this.options.store.sessions.get(id);
    if (!record || record.status === 'active' || record.agent === 'custom') return null;
    const spec = getAgent(record.agent);
    if (!spec.resumeArgs) return null;
    const how = this.started.get(id);
    const resume = record.agentSessionId ?? true;
    const resumed = await this.start(
      { agent: record.agent, cwd: record.cwd, args: how?.args ?? [], resume },
      who,
    );
    // The same conversation goes on: it keeps its name.
    const { sessions } = this.options.store;
    if (record.name) sessions.setName(resumed.id, record.name);
    else if (record.firstPrompt) sessions.setFirstPrompt(resumed.id, record.firstPrompt);
    return this.view(sessions.get(resumed.id)!, 0);
  }

  rename(id: string, name: string | null): boolean {
    const changed = this.options.store.sessions.setName(id, name);
    if (changed) this.changed();
    return changed;
  }

  prompts() {
    const { store } = this.options;
    return store.prompts.open().map((record): WebPrompt => {
      const { nonce: _nonce, ...view } = promptView(record, store.sessions.get(record.sessionId));
      return { id: record.id, ...view };
    });
  }

  answer(promptId: string, answer: string, who: string): AnswerResult {
    // The exact full id, as /api/prompts lists it: a prefix (or an empty id, a prefix of every one) would
    // answer whichever prompt it happens to match.
    const outcome = answerPrompt(this.options.store, {
      promptRef: promptId,
      exact: true,
      raw: answer,
      decidedBy: who,
    });
    if (outcome.ok) {
      this.options.live.get(outcome.record.sessionId)?.poke();
      // A node's prompt: its answer is sent to it, and waits while it is away.
      const node = this.options.store.sessions.get(outcome.record.sessionId)?.node ?? null;
      const queued = node !== null && this.options.remote?.away(node) != null;
      return { ok: true, summary: outcome.summary, queued, ...(queued && node ? { node } : {}) };
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
    const sessions = new Map(
      this.options.store.sessions.byRecordings(recordings.map((r) => r.file)).map((s) => [s.recording, s]),
    );
    return recordings.map((r) => ({
      id: r.id,
      session: sessionSummary(sessions.get(r.file)),
      startedAt: r.startedAt,
      durationSeconds: r.durationSeconds,
      bytes: r.bytes,
      command: r.command, // redacted by listRecordings
      title: r.title,
    }));
  }

  async recording(id: string): Promise<FileAnswer<RecordingStream>> {
    try {
      const { handle, bytes } = await openRecording(recordingsDir(), id);
      if (bytes === 0) {
        await handle.close();
        return { ok: true, value: { bytes, stream: Readable.from([]) } };
      }
      // The bytes it had when opened (a recording still written goes on growing): the handle closes with it.
      return { ok: true, value: { bytes, stream: handle.createReadStream({ start: 0, end: bytes - 1 }) } };
    } catch (error) {
      if (error instanceof RecordingAccessError)
        return { ok: false, status: error.status, error: error.message };
      throw error;
    }
  }

  async attach(
    sessionId: string,
    viewer: TerminalViewer,
    options: AttachOptions = {},
  ): Promise<TerminalAttachment | null> {
    const session = this.options.live.get(sessionId);
    const record = this.options.store.sessions.get(sessionId);
    if (!session) {
      const socket = record && this.sharedSocket(record);
      return socket
        ? viewHosted(this.options.store.dir, socket, viewer, options.readOnly ?? false, this.options.clock)
        : null;
    }
    // A structured session has no terminal to show (its messages and prompts reach the inbox and chats).
    const terminal = session.terminal;
    if (!terminal || record?.webView === false) return null;
    // A session taken over from `agent-bridge run` keeps what its person allowed the web.
    if (record?.sessionHost && !record.webInput) options = { ...options, readOnly: true };
    const firstPrompt = firstPromptOf(session, this.options.store);
    const port = session.host;
    const redraw = async () => {
      // A host that reads the screen itself sends its output only where asked: here, once someone watches.
      const follow = port?.connection.screens === true && !this.following.has(sessionId);
      if (follow) this.following.add(sessionId);
      const drawn = follow ? await port!.follow() : await terminal.screen.redraw();
      // Output still gathered for the viewers is in this screen already: it goes out first (and is skipped by
      // the viewer being redrawn), never again after the screen.
      this.hubs.get(sessionId)?.flush();
      return drawn;
    };
    const screen = await redraw();
    let hub = this.hubs.get(sessionId);
    if (!hub) {
      hub = new ViewerHub(
        terminal,
        ({ cols, rows }) => session.resize(cols, rows),
        () => {
          this.hubs.delete(sessionId);
          if (this.following.delete(sessionId)) port?.unfollow();
        },
        this.options.clock,
      );
      this.hubs.set(sessionId, hub);
    }
    const { cols, rows } = terminal.pty.size;
    const seat = hub.add(viewer, options);
    return {
      cols,
      rows,
      canType: !options.readOnly,
      screen,
      redraw,
      input: (data) => {
        seat.input(data);
        if (!options.readOnly) firstPrompt.typed(data);
      },
      resize: (c, r) => seat.wants(c, r),
      drive: () => seat.drive(),
      detach: () => seat.leave(),
    };
  }

  /** A browser's terminal goes to the session host this process started, which serves it from then on. */
  handOffTerminal(sessionId: string, upgrade: TerminalUpgrade): boolean {
    const session = this.options.live.get(sessionId);
    const record = this.options.store.sessions.get(sessionId);
    if (!session?.terminal || record?.webView === false || this.closed) return false;
    return session.host?.viewers?.hand(upgrade) ?? false;
  }

  onEvent(listener: (event: WebEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  conversation(sessionId: string) {
    return this.conversations.get(sessionId)?.snapshot(this.takesMessages(sessionId)) ?? null;
  }

  watchConversation(sessionId: string, listener: (update: ConversationUpdate) => void) {
    const log = this.conversations.get(sessionId);
    if (!log) return null;
    return { snapshot: log.snapshot(this.takesMessages(sessionId)), stop: log.subscribe(listener) };
  }

  sendMessage(sessionId: string, text: string, who: string): MessageResult {
    const session = this.options.live.get(sessionId);
    const log = this.conversations.get(sessionId);
    if (!session || !log || !this.takesMessages(sessionId))
      return { ok: false, status: 404, error: 'no such running session that takes messages from this page' };
    const outcome = sendTextToSession(this.options.store, sessionId, text, who);
    if (outcome.type === 'refused') return { ok: false, status: 400, error: outcome.reason };
    log.sent(text, outcome.type);
    session.poke();
    return { ok: true, outcome: outcome.type, notice: textOutcomeNotice(outcome) };
  }

  folders() {
    return this.files.folders();
  }

  subfolders(folder: unknown) {
    return this.files.subfolders(folder);
  }

  sessionFolder(id: string, relative: unknown) {
    return this.files.folder(id, relative);
  }

  sessionFile(id: string, relative: unknown) {
    return this.files.file(id, relative);
  }

  sessionChanges(id: string) {
    return this.files.changes(id);
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

  /** A listed session as it is now: one whose agent-bridge process is gone is closed first (crashed). */
  private current(record: SessionRecord): SessionRecord {
    if (record.status !== 'active' || this.options.live.get(record.id) || record.host !== this.host)
      return record;
    if (!reapIfDead(this.options.store, record)) return record;
    return this.options.store.sessions.get(record.id) ?? record;
  }

  private view(record: SessionRecord, pendingPrompts: number): WebSession {
    return webSessionView(record, pendingPrompts, {
      live: this.options.live.get(record.id),
      startedHere: this.started.has(record.id),
      shared: this.sharedSocket(record) !== null,
      conversation: this.conversations.get(record.id)?.currentState ?? null,
      remote: record.node !== null && this.options.remote !== undefined,
    });
  }

  /** A structured session of this process that still runs: a message from the page reaches it. */
  private takesMessages(sessionId: string): boolean {
    const session = this.options.live.get(sessionId);
    return session !== undefined && session.terminal === null && !this.closed;
  }

  /**
   * The socket of the session host of a session another process controls (`agent-bridge run`, `attach`), when
   * the web may see it and the socket is one this server may trust.
   */
  private sharedSocket(record: SessionRecord): string | null {
    const socket = record.sessionHost?.socket;
    if (record.status !== 'active' || !socket || !record.webView || record.host !== this.host) return null;
    return trustedHost(this.options.store.dir, socket) ? socket : null;
  }

  /** Busy and idle are not in the store: the page hears of them from the sessions themselves. */
  private watchStates(): void {
    for (const session of this.options.live.all()) {
      if (this.watched.has(session)) continue;
      this.watched.add(session);
      this.conversations.follow(session);
      session.on((event) => {
        if (event.type === 'status' && event.state && !this.closed) this.emit({ type: 'sessions' });
      });
    }
  }
}

function sessionSummary(record: SessionRecord | undefined): WebRecording['session'] {
  return record ? { id: record.id, name: sessionName(record), agent: record.agent, cwd: record.cwd } : null;
}

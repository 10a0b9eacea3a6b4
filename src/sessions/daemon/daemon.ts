import type { ChatTarget, InboundEvent } from '../../channels/contract.js';
import type { PromptTtls } from '../../config/prompt-ttls.js';
import type { ThreadEntry } from '../../config/schema.js';
import type { Clock } from '../../core/clock.js';
import type { IsAlive } from '../../core/process-ref.js';
import { Merger } from '../../core/merger.js';
import { TokenBucketLimiter, type RateLimiter, type RateLimits } from '../../core/rate-limit.js';
import { routeMessage } from '../../core/router.js';
import { uploadsDir } from '../../store/paths.js';
import type { SessionRecord } from '../../store/session-store.js';
import type { AgentSession } from '../agent-session.js';
import type { Store } from '../../store/store.js';
import { ChannelRelay } from '../channel-relay.js';
import { reapDeadSessions } from '../session-liveness.js';
import type { LiveSessions } from '../live-sessions.js';
import { textOutcomeNotice, type TextOutcome } from '../typed-text.js';
import { saveUploads } from '../uploads.js';
import { ControlPanel, type PanelProject } from './control-panel.js';
import { bridgeCommand } from './daemon-commands.js';
import type { DaemonChannel, DaemonRepo, DaemonSettings } from './daemon-types.js';
import { RepoSession, type RepoDefinition, type ResolveAgent } from './repo-session.js';
import { ThreadSessions } from './thread-sessions.js';

export type { DaemonChannel, DaemonRepo, DaemonSettings } from './daemon-types.js';

export interface DaemonOptions {
  store: Store;
  /**
   * The relays' own connection to the same database: SQLite tells a connection about other connections'
   * commits only, and the relays must notice what the sessions write. Default: a connection of its own.
   */
  relayStore?: Store;
  clock: Clock;
  settings: DaemonSettings;
  channels: DaemonChannel[];
  resolve: ResolveAgent;
  /** Claude Code's hooks for its terminal sessions (they post to each session's host). */
  hooks?: boolean;
  live?: LiveSessions;
  isAlive: IsAlive;
  log: (line: string) => void;
  /** Writes a thread created in chat into the config file. */
  saveThread?: (repo: string, entry: ThreadEntry) => void;
  /**
   * Projects of other machines on the control panel (a cluster hub's nodes: `api@laptop`), and what its Start
   * and Stop buttons do for them (the acknowledgement to show; null: not one of them).
   */
  remoteProjects?: {
    list(): Promise<PanelProject[]>;
    act(action: 'start' | 'stop', project: string, by: string): Promise<string | null>;
  };
  /**
   * Rate limits counted elsewhere (Redis, shared by several hubs) instead of in this process; called again
   * when a reload changes the limits.
   */
  limiter?: (limits: Partial<RateLimits>) => RateLimiter;
  /**
   * Commands another part answers (a cluster hub's /nodes, /start, /stop), seen before the repositories' own:
   * true when it answered. `say` writes in the chat the command came from.
   */
  commands?: (
    text: string,
    from: { channel: string; user: string },
    say: (text: string) => Promise<void>,
  ) => Promise<boolean>;
  /**
   * Takes over the sessions still running in session hosts (they come back to their repositories and threads
   * through claim()), before anything is started: a repository whose session still runs is not started twice.
   */
  takeOver?: () => Promise<void>;
}

const SELECTED = 'daemon:selected';
/** Bridge commands about one session (the others are about the chat or every repository). */
const SESSION_COMMANDS = new Set(['status', 'cancel', 'restart']);
type TextEvent = Extract<InboundEvent, { type: 'text' }>;
type FilesEvent = Extract<InboundEvent, { type: 'files' }>;

/**
 * `agent-bridge serve`: many repositories, many channels, one process (seed 000 generalised). Messages from a
 * chat mapped to a repository go through the router (bridge commands), the rate limits and the merger to that
 * repository's session, started lazily; a message in a thread under a mapped chat goes to that thread's own
 * session (seed 001). Sessions' messages reach their chats through the store and the relays.
 */
export class Daemon {
  private readonly repos = new Map<string, RepoSession>();
  private readonly mergers = new Map<string, Merger>();
  private readonly relays: ChannelRelay[] = [];
  /** stop() began: a start still going stops where it is. */
  private stopping = false;
  private readonly panels: ControlPanel[] = [];
  readonly threads: ThreadSessions;
  private limiter: RateLimiter | null;
  private settings: DaemonSettings;

  constructor(private readonly options: DaemonOptions) {
    this.settings = options.settings;
    this.limiter = this.makeLimiter();
    this.threads = new ThreadSessions({
      store: options.store,
      log: options.log,
      makeSession: (definition) => this.makeSession(definition),
      notify: (channel, target, text) => this.say(channel, target, text),
      ...(options.saveThread ? { saveThread: options.saveThread } : {}),
    });
    this.applyRepos();
  }

  /** Starts every channel (a channel that cannot start is an error naming it), then `startup` sessions. */
  async start(): Promise<string[]> {
    const hosted: string[] = [];
    for (const entry of this.options.channels) {
      const relay = this.relayFor(entry);
      // Known while it starts, so that a stop meanwhile (serve stopped during a slow start) stops it too.
      this.relays.push(relay);
      try {
        if (!(await relay.start())) {
          this.relays.splice(this.relays.indexOf(relay), 1);
          continue;
        }
      } catch (error) {
        throw new Error(`${entry.channel.name} could not start: ${(error as Error).message}`);
      }
      if (this.stopping) return hosted;
      hosted.push(entry.channel.name);
      if (entry.panelChat) this.panels.push(this.panelFor(entry, entry.panelChat));
    }
    if (this.stopping) return hosted;
    // Sessions whose agent-bridge died while their session host kept them running are taken over as they are;
    // those that died with it come back, resuming their conversations.
    const crashed = new Set(reapDeadSessions(this.options.store, this.options.isAlive).map((s) => s.label));
    await this.options.takeOver?.();
    for (const line of await this.threads.recover(this.settings.repos, crashed)) this.options.log(line);
    for (const repo of this.settings.repos.filter((r) => r.startup || crashed.has(r.name))) {
      if (this.repos.get(repo.name)?.state !== 'stopped') continue; // taken over, still running
      await this.repos
        .get(repo.name)
        ?.start()
        .catch((error: unknown) =>
          this.options.log(`${repo.name}: could not start: ${(error as Error).message}`),
        );
    }
    this.refreshPanels();
    return hosted;
  }

  /** SIGHUP: new repositories, mappings, limits and allowlists; running sessions are kept. */
  reload(settings: DaemonSettings, allowlists: Map<string, Set<string>>): void {
    this.settings = settings;
    this.limiter = this.makeLimiter();
    this.applyRepos();
    for (const relay of this.relays) {
      const users = allowlists.get(relay.name);
      if (users) relay.setAllowedUsers(users);
    }
    this.refreshPanels();
  }

  /**
   * Graceful shutdown: sessions in session hosts are let go (they go on, and the next serve takes them over);
   * the others stop; their prompts stay pending in the store; channels close.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const panel of this.panels) panel.stop();
    const reason = 'agent-bridge serve stopped';
    await Promise.all([
      ...[...this.repos.values()].map((repo) => repo.release(reason).catch(() => undefined)),
      this.threads.releaseAll(reason),
    ]);
    await Promise.all(this.relays.map((relay) => relay.stop().catch(() => undefined)));
  }

  /** Something changed that the control panel shows (a node's session started or stopped). */
  panelsChanged(): void {
    this.refreshPanels();
  }

  /**
   * A session taken over from its session host (serve restarted while it ran): a repository's goes back to
   * its repository, a thread's to its thread. False for any other (a `run` session, one started from the web).
   */
  claim(session: AgentSession, record: SessionRecord): boolean {
    const repo = this.repos.get(record.label);
    if (repo) return repo.adopt(session);
    const thread = this.options.store.threads.activeByLabel(record.label);
    const parent = thread && this.definition(thread.repo);
    if (!thread || !parent) return false;
    void this.threads
      .adopt(thread, parent, session)
      .then((line) => this.options.log(line))
      .finally(() => this.refreshPanels());
    return true;
  }

  repoNames(): string[] {
    return [...this.repos.keys()];
  }

  /** The repository session that runs `sessionId`, when this daemon runs it (a request from another machine). */
  repoSessionOf(sessionId: string): RepoSession | undefined {
    return [...this.repos.values()].find((repo) => repo.sessionId === sessionId);
  }

  /** Starts a repository's agent by name (a request from another machine); false for a name it does not have. */
  async startRepo(name: string): Promise<boolean> {
    const repo = this.repos.get(name);
    if (!repo) return false;
    await repo.start();
    this.refreshPanels();
    return true;
  }

  private makeLimiter(): RateLimiter | null {
    const limits = this.settings.rateLimits;
    if (!limits) return null;
    return this.options.limiter?.(limits) ?? new TokenBucketLimiter(this.options.clock, limits);
  }

  private applyRepos(): void {
    for (const repo of this.settings.repos) {
      const existing = this.repos.get(repo.name);
      if (existing && existing.state !== 'stopped') continue; // keep a running session as it is
      this.repos.set(repo.name, this.makeSession(repo));
    }
  }

  /** How long each kind of prompt waits in sessions this serve starts or takes over (the config's, as reloaded). */
  get promptTtlMs(): PromptTtls {
    return this.settings.promptTtlMs ?? {};
  }

  private makeSession(definition: RepoDefinition): RepoSession {
    const { store, clock, resolve } = this.options;
    return new RepoSession({
      repo: definition,
      store,
      clock,
      idleTimeoutMs: this.settings.idleTimeoutMs,
      outputThreshold: this.settings.outputThreshold,
      resume: this.settings.resume,
      ...(this.settings.promptTtlMs ? { ttlMs: this.settings.promptTtlMs } : {}),
      resolve,
      ...(this.options.hooks ? { hooks: this.options.hooks } : {}),
      ...(this.options.live ? { live: this.options.live } : {}),
      onStateChange: () => {
        this.refreshPanels();
        this.pokeRelays();
      },
      onMessage: () => this.pokeRelays(),
      log: this.options.log,
    });
  }

  private definition(name: string): DaemonRepo | undefined {
    return this.settings.repos.find((repo) => repo.name === name);
  }

  private relayFor(entry: DaemonChannel): ChannelRelay {
    const name = entry.channel.name;
    return new ChannelRelay({
      channel: entry.channel,
      store: this.options.relayStore ?? this.options.store,
      clock: this.options.clock,
      chats: entry.defaultChats,
      allowedUsers: entry.allowedUsers,
      outputThreshold: this.settings.outputThreshold,
      isAlive: this.options.isAlive,
      log: this.options.log,
      exclusive: entry.exclusive,
      ...(entry.exclusive ? {} : { bookkeeping: `${name}:${process.pid}` }),
      chatsFor: (session) => this.chatsFor(name, session) ?? entry.defaultChats,
      ...(entry.serves ? { serves: entry.serves } : {}),
      route: async (event) => {
        const handled = await this.route(entry, event);
        this.refreshPanels();
        return handled;
      },
    });
  }

  private panelFor(entry: DaemonChannel, target: ChatTarget): ControlPanel {
    return new ControlPanel({
      channel: entry.channel,
      target,
      store: this.options.relayStore ?? this.options.store,
      clock: this.options.clock,
      projects: () => this.panelProjects(),
      log: this.options.log,
    });
  }

  private pokeRelays(): void {
    for (const relay of this.relays) relay.poke();
  }

  private refreshPanels(): void {
    for (const panel of this.panels) panel.refresh();
  }

  private async panelProjects(): Promise<PanelProject[]> {
    const projects: PanelProject[] = [];
    for (const repo of this.settings.repos) {
      const session = this.repos.get(repo.name);
      const threads = await this.threads.list(repo.name);
      projects.push({
        name: repo.name,
        agent: repo.agent.displayName,
        state: session?.state ?? 'stopped',
        waiting: session?.sessionId ? this.options.store.prompts.open(session.sessionId).length : 0,
        worktrees: threads
          .filter((t) => t.worktree)
          .map((t) => ({
            thread: t.record.threadId,
            branch: t.worktree!.branch,
            state: t.state,
            changes: t.worktree!.changes,
            exists: t.worktree!.exists,
          })),
      });
    }
    return [...projects, ...((await this.options.remoteProjects?.list()) ?? [])];
  }

  /** The chats of a daemon session: its thread, or its repository's chats; null for sessions from elsewhere. */
  private chatsFor(channel: string, session: SessionRecord): ChatTarget[] | null {
    if (session.ownerPid !== process.pid) return null;
    const thread = this.threads.targetOf(session.label);
    if (thread) return thread.channel === channel ? [thread.target] : [];
    const repo = this.definition(session.label);
    if (!repo) return null;
    return (repo.chats[channel] ?? []).map((chatId) => ({ chatId }));
  }

  private repoForChat(channel: string, target: ChatTarget): RepoSession | null {
    const selected = this.options.store.channels.getState(channel, `${SELECTED}:${target.chatId}`);
    const mapped = this.mappedRepos(channel, target.chatId);
    const name = mapped.find((repo) => repo.name === selected)?.name ?? mapped[0]?.name;
    return name ? (this.repos.get(name) ?? null) : null;
  }

  private mappedRepos(channel: string, chatId: string): DaemonRepo[] {
    return this.settings.repos.filter((repo) => (repo.chats[channel] ?? []).includes(chatId));
  }

  private async route(entry: DaemonChannel, event: InboundEvent): Promise<boolean> {
    switch (event.type) {
      case 'thread_closed':
        return this.threads.close(entry.channel.name, event.target, event.reason);
      case 'button':
        return this.onPanelButton(entry, event);
      case 'text':
        return this.onText(entry, event);
      case 'files':
        return this.onFiles(entry, event);
    }
  }

  /**
   * The session a chat's message goes to: the thread's own (started lazily, in its worktree when isolated),
   * else the repository's. A thread whose session cannot start falls back to the repository's, with a notice.
   */
  private async sessionFor(
    entry: DaemonChannel,
    target: ChatTarget,
  ): Promise<{ session: RepoSession; parent: RepoSession } | null> {
    const parent = this.repoForChat(entry.channel.name, target);
    if (!parent) return null;
    if (!target.threadId || !entry.threads) return { session: parent, parent };
    const repo = this.definition(parent.repo.name)!;
    try {
      const thread = { chatId: target.chatId, threadId: target.threadId };
      return { session: await this.threads.sessionFor(entry.channel.name, thread, repo), parent };
    } catch (error) {
      await this.say(entry.channel.name, target, this.fallbackNotice(parent, error));
      return { session: parent, parent };
    }
  }

  private fallbackNotice(parent: RepoSession, error: unknown): string {
    return `⚠️ This thread's own session could not start (${(error as Error).message}); messages here go to ${parent.repo.name}'s session.`;
  }

  /**
   * Sends a person's text into the session (said back when a waiting prompt took it or holds it); a thread's
   * session that fails to start hands over to the repository's.
   */
  private async deliver(
    entry: DaemonChannel,
    target: ChatTarget,
    routed: { session: RepoSession; parent: RepoSession },
    text: string,
    sentBy: string,
  ): Promise<void> {
    let outcome: TextOutcome;
    try {
      outcome = await routed.session.send(text, sentBy);
    } catch (error) {
      if (routed.session === routed.parent) throw error;
      await this.say(entry.channel.name, target, this.fallbackNotice(routed.parent, error));
      outcome = await routed.parent.send(text, sentBy);
    }
    const notice = textOutcomeNotice(outcome);
    if (notice) await this.say(entry.channel.name, target, notice);
  }

  private async onText(entry: DaemonChannel, event: TextEvent): Promise<boolean> {
    const channel = entry.channel.name;
    // A command from a form of the platform's (Slack's /agent-bridge) is answered to its sender only.
    const reply = (text: string) =>
      (event.acknowledge ? event.acknowledge(text) : entry.channel.sendText(event.target, text)).then(
        () => true,
      );
    const say = (text: string) => this.say(channel, event.target, text);
    if (await this.options.commands?.(event.text, { channel, user: event.from.id }, say)) return true;
    const parent = this.repoForChat(channel, event.target);
    if (!parent) return false;
    const route = routeMessage(event.text);
    if (route.type === 'bridge') {
      // A command starts nothing: in a thread it is about the thread's session, if it has one yet.
      const inThread = Boolean(event.target.threadId && entry.threads);
      const session = inThread ? this.threads.running(channel, event.target) : parent;
      if (!session && SESSION_COMMANDS.has(route.command))
        return reply('No agent session in this thread yet: the first message starts one.');
      const answer = await bridgeCommand(route.command, route.args, {
        session: session ?? parent,
        repos: this.mappedRepos(channel, event.target.chatId),
        store: this.options.store,
        threads: this.threads,
        select: (name) =>
          this.options.store.channels.setState(channel, `${SELECTED}:${event.target.chatId}`, name),
        now: this.options.clock.now(),
      });
      return answer === null ? false : reply(answer);
    }
    const decision = await this.limiter?.check({
      userId: channel === 'terminal' ? 'terminal' : event.from.id,
      channelKey: `${channel}:${event.target.chatId}`,
    });
    if (decision && !decision.allowed) {
      const seconds = Math.ceil(decision.retryAfterMs / 1000);
      return reply(
        `Slow down a little: too many messages from ${decision.scope === 'user' ? 'you' : 'this chat'}. Try again in ${seconds} s.`,
      );
    }
    const routed = await this.sessionFor(entry, event.target);
    if (!routed) return false;
    const merger = this.mergers.get(routed.session.repo.name) ?? new Merger(this.options.clock);
    this.mergers.set(routed.session.repo.name, merger);
    try {
      await this.deliver(
        entry,
        event.target,
        routed,
        merger.format(channel, route.text),
        `${channel}:${event.from.id}`,
      );
    } catch (error) {
      return reply(
        `${routed.parent.repo.name}: could not start ${routed.parent.repo.agent.displayName}: ${(error as Error).message}`,
      );
    }
    return true;
  }

  /** Files go into the session's upload folder; the agent gets the words sent with them and their paths. */
  private async onFiles(entry: DaemonChannel, event: FilesEvent): Promise<boolean> {
    const reply = (text: string) => entry.channel.sendText(event.target, text).then(() => true);
    const routed = await this.sessionFor(entry, event.target);
    if (!routed) return false;
    const { store } = this.options;
    const saved = await saveUploads(
      event.files,
      uploadsDir(store.dir, routed.session.repo.name),
      event.caption,
    );
    if (!saved.ok) {
      store.audit.record('UPLOAD_REFUSED', {
        channel: entry.channel.name,
        user: event.from.id,
        repo: routed.session.repo.name,
        reason: saved.reason,
      });
      return reply(`Not passed to the agent: ${saved.reason}`);
    }
    try {
      await this.deliver(entry, event.target, routed, saved.input, `${entry.channel.name}:${event.from.id}`);
    } catch (error) {
      return reply(`${routed.parent.repo.name}: could not start the agent: ${(error as Error).message}`);
    }
    return true;
  }

  private async onPanelButton(
    entry: DaemonChannel,
    event: Extract<InboundEvent, { type: 'button' }>,
  ): Promise<boolean> {
    const request = ControlPanel.parseButton(event.data);
    if (!request) return false;
    const repo = this.repos.get(request.repo);
    if (!repo) {
      const by = `${entry.channel.name}:${event.from.id}`;
      const remote = await this.options.remoteProjects?.act(request.action, request.repo, by);
      await event.acknowledge(remote ?? `No project ${request.repo} here.`);
      return true;
    }
    this.options.store.audit.record('THREAD_SESSION', {
      action: `panel ${request.action}`,
      repo: request.repo,
      decided_by: `${entry.channel.name}:${event.from.id}`,
    });
    if (request.action === 'stop') {
      await event.acknowledge(`Stopping ${request.repo}…`);
      await repo.stop(`stopped from the control panel by ${event.from.name}`, true);
    } else {
      await event.acknowledge(`Starting ${request.repo}…`);
      await repo
        .start()
        .catch((error: unknown) =>
          this.say(
            entry.channel.name,
            event.target,
            `${request.repo} could not start: ${(error as Error).message}`,
          ),
        );
    }
    this.refreshPanels();
    return true;
  }

  /** Says something in a chat directly (not tied to a session's messages). */
  private async say(channel: string, target: ChatTarget, text: string): Promise<void> {
    const entry = this.options.channels.find((c) => c.channel.name === channel);
    await entry?.channel
      .sendText(target, text)
      .catch((error: unknown) => this.options.log(`${channel}: could not say: ${(error as Error).message}`));
  }
}

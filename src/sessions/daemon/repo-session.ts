import { mkdirSync } from 'node:fs';
import {
  defaultDriver,
  type AgentSpec,
  type DriverChoice,
  type DriverKind,
  type LaunchOptions,
} from '../../agents/types.js';
import type { Clock, TimerHandle } from '../../core/clock.js';
import { exitHow } from '../session-record-files.js';
import { spokenDuration } from '../../core/spoken-duration.js';
import type { PromptTtls } from '../../config/prompt-ttls.js';
import { OutputBatcher } from '../../core/output-batcher.js';
import { OutputExtractor } from '../../drivers/terminal/output-extractor.js';
import { ScreenModel } from '../../drivers/terminal/screen.js';
import { outputsDir } from '../../store/paths.js';
import type { Store } from '../../store/store.js';
import { AgentSession, BACKGROUND_SESSION, SERVE_HOSTED } from '../agent-session.js';
import type { LiveSessions } from '../live-sessions.js';
import { sendTextToSession, type TextOutcome } from '../typed-text.js';

export interface RepoDefinition {
  /** The repository's name, or `<repo>#<thread id>` for a thread's session: the session's label. */
  name: string;
  dir: string;
  agent: AgentSpec;
  args: string[];
  /** Channels mapped to this repository, e.g. ['telegram', 'terminal']. */
  channels: string[];
  /** Model and permission mode (`bypassPermissions` skips every prompt). */
  launch?: Pick<LaunchOptions, 'model' | 'permissionMode' | 'skipPermissions'>;
  /** Its screen (terminal, the default), its own protocol (structured), or the protocol where it has one. */
  driver?: DriverChoice;
}

/** Finds the agent's executable, chooses its driver and builds its arguments for it. */
export type ResolveAgent = (
  spec: AgentSpec,
  options: LaunchOptions,
  driver?: DriverChoice,
) => Promise<{ command: string; args: string[]; found: boolean; driver?: DriverKind; notice?: string }>;

export interface RepoSessionOptions {
  repo: RepoDefinition;
  store: Store;
  clock: Clock;
  idleTimeoutMs: number;
  outputThreshold: number;
  resume: boolean;
  /** How long each kind of prompt waits (`defaults.prompt_ttl`). */
  ttlMs?: PromptTtls;
  /** Claude Code's hooks for its terminal sessions (they post to the session's host). */
  hooks?: boolean;
  /** Where live sessions are listed for browsers to attach to. */
  live?: LiveSessions;
  /** Finds the agent's executable and arguments (the registry's resolveLaunch). */
  resolve: ResolveAgent;
  /** Told when the session starts or stops (the control panel shows it). */
  onStateChange?: () => void;
  /** Told when the session has something for its chats (a message, a notice), so relays look at once. */
  onMessage?: () => void;
  /** Where the daemon says what went wrong (its log). */
  log?: (line: string) => void;
}

export type RepoState = 'stopped' | 'starting' | 'running';

/**
 * One repository's agent session in the daemon (seed 000's repoSession): started lazily on the first message
 * (resuming the agent's last conversation where it can), shared by every channel mapped to the repository,
 * stopped after the idle timeout with a notice, restarted on /restart, interrupted on /cancel.
 */
export class RepoSession {
  private session: AgentSession | null = null;
  private starting: Promise<AgentSession> | null = null;
  private idleTimer: TimerHandle | null = null;
  private lastActivity: number;
  private batcher: OutputBatcher | null = null;
  private extractor: OutputExtractor | null = null;
  /** The last finished line (numbered by the session host) given to the batcher: the chats have it at a flush. */
  private linesPushed = 0;

  constructor(private readonly options: RepoSessionOptions) {
    this.lastActivity = options.clock.now();
  }

  get repo(): RepoDefinition {
    return this.options.repo;
  }

  get state(): RepoState {
    return this.session ? 'running' : this.starting ? 'starting' : 'stopped';
  }

  get sessionId(): string | null {
    return this.session?.id ?? null;
  }

  /** How the running agent is driven (its screen, or its protocol); null when it is not running. */
  get driverKind(): 'terminal' | 'structured' | null {
    return this.session?.driver.kind ?? null;
  }

  idleForMs(): number {
    return this.options.clock.now() - this.lastActivity;
  }

  /** Starts the agent without a message (`startup: true`, the control panel's Start). */
  async start(): Promise<void> {
    await this.ensureStarted();
  }

  /**
   * Sends a person's message to the agent, starting it first when needed: typed at once, or, while a prompt
   * is shown, taken as its answer in words or held until it is resolved (see sendTextToSession).
   */
  async send(text: string, sentBy: string): Promise<TextOutcome> {
    const session = await this.ensureStarted();
    this.touch();
    const outcome = sendTextToSession(this.options.store, session.id, text, sentBy);
    if (outcome.type === 'queued' || outcome.type === 'held') this.extractor?.typedLine(text);
    session.poke();
    return outcome;
  }

  cancel(): boolean {
    if (!this.session) return false;
    this.session.driver.interrupt();
    this.touch();
    return true;
  }

  /**
   * Takes over the repository's session from its session host (serve restarted, or another process let it
   * go): it goes on as if this process had started it. False when this repository already runs one.
   */
  adopt(session: AgentSession): boolean {
    if (this.session || this.starting) return false;
    this.attach(session);
    this.options.live?.add(session);
    this.options.onStateChange?.();
    return true;
  }

  /**
   * agent-bridge stops, the session does not: a session in a session host is let go (it goes on; the next
   * serve takes it over), and its prompts stay as they are. One without a host is stopped, its prompts kept.
   */
  async release(reason: string): Promise<void> {
    this.idleTimer?.cancel();
    this.idleTimer = null;
    const session = this.session ?? (await this.starting?.catch(() => null)) ?? null;
    if (session?.host) {
      this.batcher?.flush();
      this.session = null;
      this.starting = null;
      session.detach(reason);
      return;
    }
    await this.stop(reason, true);
  }

  /** Stops the agent; the next message starts it again. Open prompts stay in the store when `keepPrompts`. */
  async stop(reason: string, keepPrompts = false): Promise<void> {
    this.idleTimer?.cancel();
    this.idleTimer = null;
    const session = this.session ?? (await this.starting?.catch(() => null)) ?? null;
    this.session = null;
    this.starting = null;
    if (!session) return;
    const exit = await session.driver.stop();
    this.batcher?.close(); // after the agent's last output
    await session.finish(exit, 'terminated', { keepPrompts, reason });
    this.options.onStateChange?.();
  }

  private ensureStarted(): Promise<AgentSession> {
    if (this.session) return Promise.resolve(this.session);
    this.starting ??= this.launch().finally(() => {
      this.starting = null;
    });
    return this.starting;
  }

  private async launch(): Promise<AgentSession> {
    const { repo, store, clock } = this.options;
    // Resume the agent's own last conversation in this repository when we know its id (Claude reports it
    // through its SessionStart hook); "continue the latest" blindly would fail where there is none.
    const previous =
      this.options.resume && repo.agent.resumeArgs
        ? store.sessions.lastAgentSessionId(repo.name, repo.agent.id)
        : null;
    const launchOptions: LaunchOptions = {
      ...repo.launch,
      extraArgs: repo.args,
      ...(previous ? { resume: previous } : {}),
    };
    const launch = await this.options.resolve(
      repo.agent,
      launchOptions,
      repo.driver ?? defaultDriver(repo.agent),
    );
    // The agent writes files for the chat here and names them with [ATTACH: name].
    const outputs = outputsDir(store.dir, repo.name);
    mkdirSync(outputs, { recursive: true, mode: 0o700 });
    if (!launch.found)
      throw new Error(`${repo.agent.displayName} is not installed: ${repo.agent.installHint}`);
    if (launch.notice) this.options.log?.(`${repo.name}: ${launch.notice}`);
    const structured = launch.driver === 'structured';
    const hooks = Boolean(this.options.hooks && repo.agent.hooks);
    const session = await AgentSession.start({
      spec: repo.agent,
      command: launch.command,
      args: launch.args,
      cwd: repo.dir,
      ...BACKGROUND_SESSION,
      env: { ...BACKGROUND_SESSION.env, AGENT_BRIDGE_OUTPUTS: outputs },
      store,
      clock,
      approveFrom: repo.channels,
      label: repo.name,
      ...(this.options.ttlMs ? { ttlMs: this.options.ttlMs } : {}),
      ...(this.options.log ? { onNotice: (line: string) => this.options.log!(`${repo.name}: ${line}`) } : {}),
      ...(structured
        ? {
            structured: {
              ...(previous ? { resume: previous } : {}),
              ...(launchOptions.model ? { model: launchOptions.model } : {}),
              ...(launchOptions.skipPermissions ? { skipPermissions: true } : {}),
            },
          }
        : // In a session host: a restart of serve neither stops it nor loses what it prints meanwhile. Agents
          // without hooks are read off the screen: the host numbers their finished lines for the chats.
          { hosted: { ...SERVE_HOSTED, lines: !hooks }, ...(hooks ? { hooks: true as const } : {}) }),
    });
    if (launch.notice) this.notice(session, `${repo.name}: ${launch.notice}`);
    this.attach(session);
    this.options.live?.add(session);
    this.options.onStateChange?.();
    await session.whenReady();
    return session;
  }

  private attach(session: AgentSession): void {
    const { clock, outputThreshold, store } = this.options;
    this.session = session;
    // Its chats hear of its end once, in the repository's words.
    const { name } = this.repo;
    const agent = this.repo.agent.displayName;
    session.endNotice = (exit) =>
      `${name}: ${agent} exited (${exitHow(exit)}); the next message starts it again`;
    this.linesPushed = store.sessions.get(session.id)?.linesRead ?? 0;
    this.batcher = new OutputBatcher({
      clock,
      threshold: outputThreshold,
      onFlush: (text) => {
        // Shutting down (the store closed with a batch pending): the host still holds these lines unread
        // (linesRead is not advanced), so the next controller sends them.
        if (!store.db.open) return;
        const through = this.linesPushed;
        // The message and how far the chats have read go in together: a crash between them loses nothing.
        store.db.transaction(() => {
          store.channels.addMessage(session.id, 'message', text);
          if (session.host) store.sessions.setLinesRead(session.id, through);
        })();
        this.options.onMessage?.();
      },
    });
    // Agents with hooks or a protocol say what they mean (Claude's Stop message, a structured driver's
    // messages); others are read off the screen: here, or by their session host (numbered lines).
    const terminal = session.terminal;
    this.extractor =
      !terminal || (this.repo.agent.hooks && this.options.hooks)
        ? null
        : new OutputExtractor(
            !session.host && terminal.screen instanceof ScreenModel ? terminal.screen : null,
          );
    session.onLines((first, lines) => this.readLines(first, lines));
    session.on((event) => {
      // What a structured agent says and does keeps the session from going idle; a terminal's output too.
      if (event.type === 'message' || event.type === 'activity') this.touch();
      if (event.type === 'message') this.options.onMessage?.();
    });
    terminal?.screen.onOutput(() => this.touch());
    terminal?.screen.onSettled(() => {
      const text = this.extractor?.take();
      if (text) this.batcher?.push(text + '\n');
    });
    void session.exited.then(async (exit) => {
      if (this.session !== session) return;
      this.session = null;
      this.idleTimer?.cancel();
      this.batcher?.close();
      await session.finish(exit, session.endStatus(exit));
      this.options.onStateChange?.();
    });
    this.touch();
  }

  /** Finished lines from the session host; those the chats already had (sent again after a restart) skipped. */
  private readLines(first: number, lines: string[]): void {
    const fresh = lines.slice(Math.max(0, this.linesPushed + 1 - first));
    if (fresh.length === 0 || !this.extractor) return;
    this.linesPushed = first + lines.length - 1;
    const text = this.extractor.clean(fresh);
    if (text) this.batcher?.push(text + '\n');
    // Nothing for the chats in these lines: read, unless earlier ones still wait in the batch.
    else if (!this.batcher?.pending)
      this.options.store.sessions.setLinesRead(this.session!.id, this.linesPushed);
  }

  private touch(): void {
    this.lastActivity = this.options.clock.now();
    this.idleTimer?.cancel();
    // idle_timeout: 0 says never.
    if (this.options.idleTimeoutMs <= 0) return;
    this.idleTimer = this.options.clock.after(this.options.idleTimeoutMs, () => void this.onIdle());
  }

  /**
   * Idle this long: the agent stops, and its open prompts fail (their chat messages say so). An agent waiting
   * for a person is not idle: while a prompt waits (it expires by its own time to live), the wait starts over.
   */
  private async onIdle(): Promise<void> {
    if (!this.session) return;
    if (this.options.store.prompts.open(this.session.id).length > 0) return this.touch();
    const idle = spokenDuration(this.options.idleTimeoutMs);
    this.notice(
      this.session,
      `${this.repo.name}: ${this.repo.agent.displayName} stopped after ${idle} idle; the next message starts it again`,
    );
    this.session.endNotice = null; // said just now
    await this.stop('idle timeout');
  }

  /** Every chat of the session hears it (through the store, like the agent's own messages). */
  private notice(session: AgentSession, text: string): void {
    this.options.store.channels.addMessage(session.id, 'notice', text);
    this.options.onMessage?.();
  }
}

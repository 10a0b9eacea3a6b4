import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import type { AgentDriver } from '../drivers/driver.js';
import type { AgentEvent, AgentUsage, ExitInfo, PromptKind } from '../core/events.js';
import type { ProcessRef } from '../core/process-ref.js';
import { DEFAULT_PROMPT_TTL_MS } from '../core/prompt.js';
import { OPEN_STATUSES } from '../core/prompt-state.js';
import { newSealingKeys, openSealed } from '../core/sealed-box.js';
import { ProgressNotes } from '../drivers/hooks/claude-transcript.js';
import { ownProcessRef } from '../drivers/terminal/process-tree.js';
import { TerminalSession, type TerminalReadingOptions } from '../drivers/terminal/terminal-session.js';
import { AsciicastWriter } from '../store/asciicast-writer.js';
import type { SessionRecord } from '../store/session-store.js';
import type { Store } from '../store/store.js';
import { whenAgentReady } from './agent-ready.js';
import { firstPromptOf } from './first-prompt.js';
import { hostedLaunch } from './hosted-launch.js';
import {
  endLine,
  endStatusOf,
  recordingPlan,
  recordSessionEnd,
  type EndStatus,
} from './session-record-files.js';
import type { HostConnection } from './host/host-connection.js';
import { startHosted, over, type HostedTerminal } from './host/hosted-terminal.js';
import type { HostView, RemotePort } from './host/remote-port.js';
import {
  takeOverSessionOptions,
  type AgentSessionOptions,
  type HostedOptions,
  type TakeOverOptions,
} from './agent-session-options.js';
import { detectedOf, PromptCoordinator } from './prompt-coordinator.js';
import { hookHandler, hookSettings, relayHooks, type HookContext } from './session-hooks.js';
import { registerSession } from './session-registration.js';
import { SessionUsage } from './session-usage.js';
import { SharedStoreChanges } from './store-watcher.js';

export {
  BACKGROUND_SESSION,
  SERVE_HOSTED,
  type AgentSessionOptions,
  type HostedOptions,
  type TakeOverOptions,
} from './agent-session-options.js';

/** How long a permission dialog seen on screen waits for Claude's hook to report it exactly. */
const HOOK_GRACE_MS = 1500;

/**
 * One agent under agent-bridge: its driver (its terminal, or its own protocol), its row in the store, its
 * prompts (screen, hooks or protocol) through the coordinator, its recording and its audit trail. What
 * channels see is its event stream.
 */
export class AgentSession {
  readonly id: string;
  driver!: AgentDriver;
  coordinator!: PromptCoordinator;
  recorder: AsciicastWriter | null = null;
  /** The recording's file (written here, or by the session host). */
  recording: string | null = null;
  /** The session host holding its terminal (a hosted session), as its controller reaches it. */
  host: RemotePort | null = null;
  /** Resolves when the session leaves this process: its agent ended, or it was let go (detach). */
  readonly gone: Promise<'exited' | 'detached'>;
  private leave!: (how: 'exited' | 'detached') => void;
  private readonly lineListeners: Array<(first: number, lines: string[]) => void> = [];
  /** Lines the host sent before anyone listened (right after a take-over): given to the first listener. */
  private earlyLines: Array<[number, string[]]> = [];
  private readonly listeners: Array<(event: AgentEvent) => void> = [];
  private cleanup: Array<() => void> = [];
  private unwatch: (() => void) | null = null;
  private idle = false;
  private readonly usageKept: SessionUsage;
  private readonly progressNotes = new ProgressNotes();
  /** Secret answers are sealed to this key by whoever answers; only this session can open them. */
  private readonly sealing = newSealingKeys();
  /** The last storage failure said, so a full disk is said once per kind of failure, not per byte. */
  private readonly storageSaid = new Set<string>();
  /** Someone stopped it (a person, or agent-bridge shutting down): its end is 'terminated', not a crash. */
  private stopRequested = false;
  /** Text from chats being typed now: a one-shot controller lets the session go only once it went out. */
  private readonly sending = new Set<Promise<void>>();
  /** Let go (or letting go): text sent from chats waits in the store for the next controller. */
  private lettingGo = false;
  private finishing: Promise<void> | null = null;
  /**
   * What the session's chats are told when it ends: `⏹ … ended (…)` (undefined), a line of its controller's
   * (a repository's: and that the next message starts it again), or nothing (null: the controller said why).
   */
  endNotice: ((exit: ExitInfo) => string) | null | undefined = undefined;
  private registered = false;
  private agentSessionId: string | null = null;
  /** The session host's process (a hosted session started here). */
  private hostProcess: ProcessRef | null = null;

  private constructor(
    private readonly options: AgentSessionOptions,
    id: string = randomUUID(),
  ) {
    this.id = id;
    this.usageKept = new SessionUsage(options.store, id);
    this.gone = new Promise((resolve) => (this.leave = resolve));
  }

  static async start(options: AgentSessionOptions): Promise<AgentSession> {
    const session = new AgentSession(options);
    await session.launch();
    void session.exited.then(() => session.leave('exited'));
    return session;
  }

  /**
   * Takes over a session whose session host outlived the process that ran it (killed, crashed, upgraded, or
   * let go): the same id, its prompts as they stand in the store (an answer recorded meanwhile is typed once;
   * one the screen no longer shows is closed), its hooks relayed here, its store row naming this process as
   * its controller.
   */
  static async takeOver(options: TakeOverOptions): Promise<AgentSession> {
    const { record } = options;
    const session = new AgentSession(takeOverSessionOptions(options), record.id);
    session.recording = record.recording;
    await session.resume(options.connection, options.view, record);
    void session.exited.then(() => session.leave('exited'));
    return session;
  }

  on(listener: (event: AgentEvent) => void): void {
    this.listeners.push(listener);
  }

  /** The agent shows its input box, waiting for a new message. */
  get isIdle(): boolean {
    return this.idle;
  }

  /** What the agent last reported of its model, context use and rate limits (Claude Code's status line). */
  get usage(): AgentUsage | null {
    return this.usageKept.current;
  }

  get exited(): Promise<ExitInfo> {
    return this.driver.exited;
  }

  /** The agent's terminal, when it runs in one (the terminal driver); null under a structured driver. */
  get terminal(): TerminalSession | null {
    return this.driver instanceof TerminalSession ? this.driver : null;
  }

  /** Resolves when the agent can take a message (see whenAgentReady); a structured driver is ready once started. */
  whenReady(timeoutMs = 20_000): Promise<void> {
    const terminal = this.terminal;
    if (!terminal) return Promise.resolve();
    return whenAgentReady(
      {
        terminal,
        clock: this.options.clock,
        knowsIdle: Boolean(this.options.spec.screens.isIdle),
        idle: this.idle,
        on: (listener) => this.on(listener),
      },
      timeoutMs,
    );
  }

  private ttl(): Record<PromptKind, number> {
    return { ...DEFAULT_PROMPT_TTL_MS, ...this.options.ttlMs };
  }

  private newCoordinator(): PromptCoordinator {
    const { spec, store, clock } = this.options;
    const ttl = this.ttl();
    return new PromptCoordinator({
      sessionId: this.id,
      prompts: store.prompts,
      audit: store.audit,
      clock,
      ttlMs: (kind) => ttl[kind],
      observers: this.options.observers ?? [],
      hookGraceMs: spec.hooks && this.options.hooks ? HOOK_GRACE_MS : 0,
      openSealed: (reply) => ({ type: 'text', text: openSealed(this.sealing.privateKey, reply.box ?? '') }),
      onClear: () => this.onStoreChange(),
      onStorageError: (what, error) => this.storageFailed(what, error),
    });
  }

  private async launch(): Promise<void> {
    const { store, clock } = this.options;
    const ttl = this.ttl();
    this.coordinator = this.newCoordinator();
    const permissionSeconds = Math.ceil(ttl.permission / 1000) + 60;
    if (this.options.structured)
      this.driver = await this.startStructured(Math.ceil(Math.max(...Object.values(ttl)) / 1000) + 60);
    else if (this.options.hosted)
      this.driver = await this.startInHost(this.options.hosted, permissionSeconds);
    else this.driver = await this.startTerminal();
    if (this.options.record && this.terminal && !this.host) this.recording = this.startRecording();
    this.register(this.recording);
    this.driver.on((event) => this.onDriverEvent(event));
    // Output flows after whoever started it has subscribed (as a PTY's own output comes in later turns).
    const connection = this.host?.connection;
    if (connection) setImmediate(() => connection.start());
    this.unwatch = SharedStoreChanges.for(store, clock).subscribe(() => this.onStoreChange());
  }

  /** How the terminal driver reads this agent's screen. */
  private reading(): TerminalReadingOptions {
    const { spec, clock } = this.options;
    return {
      clock,
      startupPrompts: spec.startupPrompts,
      autoAcceptStartup: this.options.autoTrust,
      vocabulary: spec.screens,
    };
  }

  /** The agent in this process's PTY: read off its screen only (Claude's hooks post to a session host). */
  private async startTerminal(): Promise<TerminalSession> {
    return TerminalSession.start({
      command: this.options.command,
      args: this.options.args,
      cwd: this.options.cwd,
      env: this.options.env,
      cols: this.options.cols,
      rows: this.options.rows,
      ...this.reading(),
    });
  }

  /** The agent in a session host of its own: it records, and relays Claude's hooks to whoever controls it. */
  private async startInHost(
    hosted: HostedOptions,
    permissionTimeoutSeconds: number,
  ): Promise<TerminalSession> {
    const { spec, store } = this.options;
    const settings =
      spec.hooks && this.options.hooks ? hookSettings(store, this.id, permissionTimeoutSeconds) : null;
    if (settings) this.cleanup.push(settings.remove);
    const hooks = settings ? { token: randomBytes(32).toString('hex'), settingsFile: settings.file } : null;
    const recording = this.options.record ? recordingPlan(this.options, this.id) : null;
    this.recording = recording?.file ?? null;
    const session = { id: this.id, label: this.label(), hosted, reading: this.reading() };
    const started: HostedTerminal = await startHosted(
      hostedLaunch(this.options, session, hooks, recording),
    ).catch((error: unknown) => {
      settings?.remove();
      throw error;
    });
    this.attachHost(started.port, started.connection);
    this.hostProcess = started.hostProcess;
    return started.terminal;
  }

  /** This process controls the session's host now: its hooks, lines and notices come here. */
  private attachHost(port: RemotePort, connection: HostConnection): void {
    this.host = port;
    // Keys typed at another terminal attached to the host name the session as keys typed here do.
    port.onTyped((data) => firstPromptOf(this, this.options.store).typed(data));
    if (this.options.hooks) {
      const context = this.hookContext();
      relayHooks(connection, (answered) => hookHandler(context, answered));
    }
    connection.onFrame((frame) => {
      if (frame.type === 'hookRefused')
        this.audit('UNAUTHORIZED', {
          source: 'hook',
          event: frame.event,
          reason: frame.reason,
          via: 'session host',
        });
      if (frame.type === 'notice') this.storageFailed(frame.what, new Error(frame.reason));
      if (frame.type !== 'lines') return;
      if (this.lineListeners.length === 0) this.earlyLines.push([frame.first, frame.lines]);
      for (const listener of this.lineListeners) listener(frame.first, frame.lines);
    });
  }

  /**
   * Takes the session over from its host (see takeOver): the terminal read from the screen it showed, then
   * the prompts left unfinished taken over and checked against that screen before anything is typed.
   */
  private async resume(connection: HostConnection, view: HostView, record: SessionRecord): Promise<void> {
    const { store, clock } = this.options;
    this.coordinator = this.newCoordinator();
    const previous = record.owner.pid;
    store.sessions.setController(this.id, ownProcessRef(), this.sealing.publicKey);
    this.audit('SESSION_TAKEN_OVER', { previous_controller: previous, host_pid: connection.welcome.hostPid });
    const unfinished = store.prompts.unfinished(this.id);
    // Taken over (the audit log read) before the terminal is made: from then on, what its screen shows must
    // find the prompts in place and its events a listener.
    let terminal: TerminalSession | null = null;
    await this.coordinator.adopt(unfinished, (stored) =>
      stored.source === 'hook'
        ? null
        : (action, decided) => terminal!.answer(detectedOf(stored), action, undefined, decided.id),
    );
    const made = over(connection, view, this.reading());
    const port = made.port;
    terminal = made.terminal;
    this.driver = terminal;
    this.attachHost(port, connection);
    this.registered = true;
    // Before the screen is first read: the detector knows the prompt it shows is that one, not a new one
    // (answered already, if its answer went out), and says it gone if the screen no longer shows it.
    const shown = unfinished.filter((stored) => stored.source !== 'hook' && stored.screenKey);
    const current = shown.at(-1);
    if (current) terminal.takeOver(detectedOf(current), current.status === 'injected');
    this.driver.on((event) => this.onDriverEvent(event));
    // Hooks the host kept for this controller arrive now, and rebind the prompts they raised.
    connection.start();
    await this.coordinator.dropUnrelayed((stored) => port.injected(stored.id));
    // A guess (low or medium confidence) is not said gone by the screen settling: checked here.
    for (const stored of shown.filter((s) => OPEN_STATUSES.includes(s.status)))
      if (!(await terminal.shows(stored.screenKey!))) this.coordinator.screenPromptGone(stored.screenKey!);
    this.unwatch = SharedStoreChanges.for(store, clock).subscribe(() => this.onStoreChange());
    this.onStoreChange();
  }

  private async startStructured(promptTimeoutSeconds: number): Promise<AgentDriver> {
    const { spec, clock } = this.options;
    // The protocols' SDKs load only for a structured session (~60 ms a terminal session never pays).
    const { startStructuredDriver } = await import('./structured-drivers.js');
    return startStructuredDriver(
      spec,
      {
        command: this.options.command,
        args: this.options.args,
        cwd: this.options.cwd,
        env: this.options.env,
        clock,
        ...this.options.structured,
      },
      {
        clock,
        promptTimeoutSeconds,
        onAgentSessionId: (agentSessionId) => this.recordAgentSessionId(agentSessionId),
      },
    );
  }

  /** The agent's own conversation id (for resume): reported during the handshake, before the row exists. */
  private recordAgentSessionId(agentSessionId: string): void {
    this.agentSessionId = agentSessionId;
    if (this.registered) this.options.store.sessions.setAgentSessionId(this.id, agentSessionId);
  }

  private register(recording: string | null): void {
    registerSession(this.options, {
      id: this.id,
      recording,
      pid: this.driver.pid,
      driver: this.driver.kind,
      hostProcess: this.hostProcess,
      answerKey: this.sealing.publicKey,
      agentSessionId: this.agentSessionId,
    });
    this.registered = true;
  }

  /** Something answered a prompt or typed into the session; callers in this process may say so at once. */
  poke(): void {
    this.onStoreChange();
  }

  /**
   * Answers recorded anywhere are applied; text typed in chats is typed into the agent, but never while a
   * prompt is shown or queued: it waits in the store until the prompt is resolved (the coordinator says so).
   */
  private onStoreChange(): void {
    this.coordinator.poke();
    if (this.coordinator.hasOpenPrompt || this.lettingGo) return;
    let inputs: ReturnType<Store['channels']['takeInputs']>;
    try {
      inputs = this.options.store.channels.takeInputs(this.id);
    } catch (error) {
      return this.storageFailed('reading text sent from chats', error);
    }
    for (const input of inputs) {
      firstPromptOf(this, this.options.store).sent(input.text);
      // Audited once typed: text the agent ended before is said not typed, never typed.
      const fields = { sent_by: input.sentBy, chars: [...input.text].length };
      const sent = this.driver.sendText(input.text).then(
        () => this.audit('TEXT_TYPED', fields),
        (error: unknown) =>
          this.audit('TEXT_NOT_TYPED', { ...fields, reason: (error as Error)?.message ?? String(error) }),
      );
      this.sending.add(sent);
      void sent.finally(() => this.sending.delete(sent));
    }
  }

  /** The store failed: said once per kind of failure, audited where possible; the agent goes on. */
  private storageFailed(what: string, error: unknown, fields: Record<string, unknown> = {}): void {
    const reason = error instanceof Error ? error.message : String(error);
    if (this.storageSaid.has(what)) return;
    this.storageSaid.add(what);
    this.options.onNotice?.(
      `could not write to ${this.options.store.dir} while ${what}: ${reason}; the session goes on`,
    );
    this.audit('STORAGE_FAILED', { what, reason, ...fields });
  }

  private audit(event: Parameters<Store['audit']['record']>[0], fields: Record<string, unknown>): void {
    try {
      this.options.store.audit.record(event, { session_id: this.id, ...fields });
    } catch {
      // The audit log itself cannot be written: the notice above is all that can be said.
    }
  }

  private onDriverEvent(event: AgentEvent): void {
    try {
      this.handleDriverEvent(event);
    } catch (error) {
      // Whatever fails in our bookkeeping, the agent's terminal goes on.
      this.storageFailed(`handling ${event.type}`, error);
    }
  }

  private handleDriverEvent(event: AgentEvent): void {
    if (event.type === 'status' && event.state) this.idle = event.state === 'idle';
    if (event.type === 'output') this.recorder?.output(event.data);
    const driver = this.driver;
    if (event.type === 'prompt') {
      const prompt = event.prompt;
      if (driver.kind === 'terminal')
        this.coordinator.raiseFromScreen(prompt, (action, record) =>
          driver.answer(prompt, action, undefined, record.id),
        );
      else
        this.coordinator.raiseFromProtocol(prompt, (action, record) =>
          driver.answer(prompt, action, record.decidedBy ?? undefined),
        );
    }
    if (event.type === 'prompt_gone') {
      if (driver.kind === 'terminal') this.coordinator.screenPromptGone(event.key);
      else this.coordinator.protocolPromptGone(event.key);
    }
    this.emit(event);
  }

  private emit(event: AgentEvent): void {
    // A structured agent's messages are all it says: they are kept for whoever reads the session.
    if (event.type === 'message' && (this.options.approveFrom?.length || this.driver.kind === 'structured')) {
      this.options.store.channels.addMessage(this.id, 'message', event.text);
    }
    if (event.type === 'status' && event.usage) this.usageKept.record(event.usage);
    for (const listener of this.listeners) listener(event);
  }

  /** What the agent said before a tool, once per distinct text, for the session's chats (seed 001). */
  private postProgress(text: string): void {
    const note = this.progressNotes.take(text);
    if (note) this.options.store.channels.addMessage(this.id, 'notice', note);
  }

  /** What the session's Claude Code hooks act on. */
  private hookContext(): HookContext {
    return {
      sessionId: this.id,
      store: this.options.store,
      coordinator: () => this.coordinator,
      emit: (event) => this.emit(event),
      ...(this.options.approveFrom?.length
        ? {
            progress: {
              note: (text: string) => this.postProgress(text),
              contextAt: (tokens: number) => this.usageKept.contextAt(tokens),
            },
          }
        : {}),
    };
  }

  /** A name for people: the repository's, else the folder's. */
  private label(): string {
    return this.options.label ?? (path.basename(this.options.cwd) || this.options.cwd);
  }

  private startRecording(): string {
    const { file, header } = recordingPlan(this.options, this.id);
    this.recorder = new AsciicastWriter(file, header, this.options.clock, (error) =>
      this.storageFailed('recording the terminal (the recording stops here)', error, { file }),
    );
    return file;
  }

  resize(cols: number, rows: number): void {
    this.terminal?.resize(cols, rows);
    this.recorder?.resize(cols, rows);
  }

  /**
   * Stops the agent because someone asked (a person, a restart, agent-bridge shutting down): it ends as
   * 'terminated' however its process ended (a shell dies of the SIGHUP it was sent).
   */
  async stop(options: { keepPrompts?: boolean; reason?: string } = {}): Promise<void> {
    this.stopRequested = true;
    const exit = await this.driver.stop();
    await this.finish(exit, 'terminated', options);
  }

  /** How the session ended (endStatusOf): stopped on request here or through its host, or on its own. */
  endStatus(exit: ExitInfo): EndStatus {
    return endStatusOf(exit, this.stopRequested || Boolean(this.host?.report?.stopped));
  }

  /**
   * After the agent exited (or was stopped). Open prompts fail ("the session ended"), unless `keepPrompts`:
   * a daemon shutting down leaves them pending in the store. Runs once: later calls share the first.
   */
  finish(
    exit: ExitInfo,
    status: EndStatus,
    options: { keepPrompts?: boolean; reason?: string } = {},
  ): Promise<void> {
    this.finishing ??= this.finishOnce(exit, status, options);
    return this.finishing;
  }

  private async finishOnce(
    exit: ExitInfo,
    status: EndStatus,
    options: { keepPrompts?: boolean; reason?: string },
  ): Promise<void> {
    this.unwatch?.();
    this.unwatch = null;
    await this.coordinator.settled();
    if (options.keepPrompts) this.coordinator.detach();
    else this.coordinator.stop(options.reason ?? 'the session ended');
    await this.recorder?.close();
    for (const clean of this.cleanup.splice(0)) clean();
    try {
      // Said only where the session has chats.
      const chats = Boolean(this.options.approveFrom?.length);
      const line =
        this.endNotice === undefined
          ? endLine(this.options.spec.displayName, this.id, exit, status)
          : this.endNotice?.(exit);
      const said = chats ? line : null;
      recordSessionEnd(this.options.store, this.id, exit, status, said ?? null);
    } catch (error) {
      this.storageFailed('recording the end of the session', error);
    }
    // Recorded: the host may go (it kept how the agent ended until someone had).
    this.host?.connection.send({ type: 'done' });
  }

  /**
   * Lets the session go on without this process (a hosted session only): its prompts stay as they are in the
   * store, its host keeps the agent, and another agent-bridge (serve, `attach`) takes it over. False for a
   * session that cannot outlive this process (it is not hosted).
   */
  detach(reason: string): boolean {
    const host = this.host;
    if (!host || this.finishing) return false;
    this.unwatch?.();
    this.unwatch = null;
    this.coordinator.detach();
    this.audit('SESSION_DETACHED', { reason });
    host.connection.send({ type: 'release' });
    host.connection.close();
    host.viewers?.close();
    this.leave('detached');
    return true;
  }

  /**
   * detach() once the answers being typed went out (a one-shot controller: approvals answer) and the program
   * replied (a question it asks next is left recorded), and the text from chats that waited for them: what is
   * taken from the store here is typed from here, before it goes.
   */
  async letGo(reason: string): Promise<boolean> {
    await this.coordinator.settled();
    await this.terminal?.answerSeen();
    this.onStoreChange();
    this.lettingGo = true;
    await Promise.all(this.sending);
    return this.detach(reason);
  }

  /** Finished lines of output numbered by the session host (a hosted session started with `lines`). */
  onLines(listener: (first: number, lines: string[]) => void): void {
    this.lineListeners.push(listener);
    const early = this.earlyLines;
    this.earlyLines = [];
    for (const [first, lines] of early) listener(first, lines);
  }
}

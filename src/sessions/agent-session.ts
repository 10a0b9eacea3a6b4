import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import path from 'node:path';
import type { AgentSpec } from '../agents/types.js';
import type { AgentDriver } from '../drivers/driver.js';
import type { StructuredLaunch } from '../drivers/structured/structured-driver.js';
import type { Clock } from '../core/clock.js';
import type { AgentEvent, AgentUsage, ExitInfo, PromptKind } from '../core/events.js';
import { DEFAULT_PROMPT_TTL_MS, describeReply } from '../core/prompt.js';
import { newSealingKeys, openSealed } from '../core/sealed-box.js';
import { ownProcessRef } from '../drivers/terminal/process-tree.js';
import { writeClaudeHookSettings } from '../drivers/hooks/claude-settings.js';
import { permissionDecision } from '../drivers/hooks/claude-hook-events.js';
import { ProgressNotes } from '../drivers/hooks/claude-transcript.js';
import type { HookReceiver } from '../drivers/hooks/hook-receiver.js';
import { TerminalSession } from '../drivers/terminal/terminal-session.js';
import { AsciicastWriter } from '../store/asciicast-writer.js';
import { recordingsDir } from '../store/paths.js';
import type { Store } from '../store/store.js';
import { firstPromptOf } from './first-prompt.js';
import { PromptCoordinator, type PromptObserver } from './prompt-coordinator.js';
import { SharedStoreChanges } from './store-watcher.js';
import { startStructuredDriver } from './structured-drivers.js';

export interface AgentSessionOptions {
  spec: AgentSpec;
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  cols: number;
  rows: number;
  autoTrust: boolean;
  record: boolean;
  store: Store;
  clock: Clock;
  /** Where Claude Code's hooks report; without it the agent runs with screen detection only. */
  hooks?: HookReceiver;
  /**
   * Run the agent through its own protocol (the spec's structured facet) instead of its screen: the launch
   * options its protocol carries (resume, model, skipping permissions). `args` are then its protocol-mode ones.
   */
  structured?: Pick<StructuredLaunch, 'resume' | 'model' | 'skipPermissions'>;
  ttlMs?: Partial<Record<PromptKind, number>>;
  observers?: PromptObserver[];
  /** Remote channels that may answer prompts and talk to the session (the local ones always can). */
  approveFrom?: string[];
  /** A name for people: the repository name; default the folder's name. */
  label?: string;
  /** Who started it, for the audit trail (e.g. `web:127.0.0.1`); absent for a session started at its own terminal. */
  startedBy?: string;
  /**
   * Something the person running it should know at once (the store failed: a full disk). `run` prints it in
   * the terminal, `serve` in its log. It is audited too, when the audit log can still be written.
   */
  onNotice?: (line: string) => void;
}

/** Sessions that run in the background (the daemon, the web UI): nobody's terminal gives them a size. */
export const BACKGROUND_SESSION = {
  env: process.env,
  cols: 120,
  rows: 40,
  autoTrust: true,
  record: true,
} as const;

/** How long a permission dialog seen on screen waits for Claude's hook to report it exactly. */
const HOOK_GRACE_MS = 1500;

/**
 * One agent under agent-bridge: its driver (its terminal, or its own protocol), its row in the store, its
 * prompts (screen, hooks or protocol) through the coordinator, its recording and its audit trail. What
 * channels see is its event stream.
 */
export class AgentSession {
  readonly id = randomUUID();
  driver!: AgentDriver;
  coordinator!: PromptCoordinator;
  recorder: AsciicastWriter | null = null;
  private readonly listeners: Array<(event: AgentEvent) => void> = [];
  private cleanup: Array<() => void> = [];
  private unwatch: (() => void) | null = null;
  private idle = false;
  private latestUsage: AgentUsage | null = null;
  private readonly progressNotes = new ProgressNotes();
  /** Secret answers are sealed to this key by whoever answers; only this session can open them. */
  private readonly sealing = newSealingKeys();
  /** The last storage failure said, so a full disk is said once per kind of failure, not per byte. */
  private readonly storageSaid = new Set<string>();
  /** Someone stopped it (a person, or agent-bridge shutting down): its end is 'terminated', not a crash. */
  private stopRequested = false;
  private finishing: Promise<void> | null = null;
  private registered = false;
  private agentSessionId: string | null = null;

  private constructor(private readonly options: AgentSessionOptions) {}

  static async start(options: AgentSessionOptions): Promise<AgentSession> {
    const session = new AgentSession(options);
    await session.launch();
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
    return this.latestUsage;
  }

  get exited(): Promise<ExitInfo> {
    return this.driver.exited;
  }

  /** The agent's terminal, when it runs in one (the terminal driver); null under a structured driver. */
  get terminal(): TerminalSession | null {
    return this.driver instanceof TerminalSession ? this.driver : null;
  }

  /**
   * Resolves when the agent can take a message: it shows its input box (agents whose vocabulary knows it),
   * else once its first output settled; at the latest after `timeoutMs`, or when it exits. Text typed before
   * then is lost by some TUIs (Claude Code drops keys while it starts).
   */
  whenReady(timeoutMs = 20_000): Promise<void> {
    const terminal = this.terminal;
    // A structured driver is ready once started: its handshake is done.
    if (!terminal) return Promise.resolve();
    return new Promise((resolve) => {
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        timer.cancel();
        resolve();
      };
      const timer = this.options.clock.after(timeoutMs, finish);
      void terminal.exited.then(finish);
      if (this.options.spec.screens.isIdle) {
        this.on((event) => {
          if (event.type === 'status' && event.state === 'idle') finish();
        });
        if (this.idle) finish();
      } else {
        terminal.screen.onSettled((screen) => {
          if (screen.snapshot().text.trim()) finish();
        });
      }
    });
  }

  private async launch(): Promise<void> {
    const { spec, store, clock } = this.options;
    const ttl = { ...DEFAULT_PROMPT_TTL_MS, ...this.options.ttlMs };
    this.coordinator = new PromptCoordinator({
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
    this.driver = this.options.structured
      ? await this.startStructured(Math.ceil(Math.max(...Object.values(ttl)) / 1000) + 60)
      : await this.startTerminal(Math.ceil(ttl.permission / 1000) + 60);
    const recording = this.options.record && this.terminal ? this.startRecording() : null;
    this.register(recording);
    this.driver.on((event) => this.onDriverEvent(event));
    this.unwatch = SharedStoreChanges.for(store, clock).subscribe(() => this.onStoreChange());
  }

  private async startTerminal(permissionTimeoutSeconds: number): Promise<TerminalSession> {
    const { spec, clock } = this.options;
    const { args, env } = this.hookArguments(permissionTimeoutSeconds);
    return TerminalSession.start({
      command: this.options.command,
      args: [...args, ...this.options.args],
      cwd: this.options.cwd,
      env: { ...this.options.env, ...env },
      cols: this.options.cols,
      rows: this.options.rows,
      clock,
      startupPrompts: spec.startupPrompts,
      autoAcceptStartup: this.options.autoTrust,
      vocabulary: spec.screens,
    });
  }

  private startStructured(promptTimeoutSeconds: number): Promise<AgentDriver> {
    const { spec, clock } = this.options;
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
    const { spec, store } = this.options;
    const approveFrom = this.options.approveFrom ?? [];
    const record = store.sessions.create({
      id: this.id,
      agent: spec.id,
      cwd: this.options.cwd,
      pid: this.driver.pid,
      recording,
      approveFrom,
      owner: ownProcessRef(),
      answerKey: this.sealing.publicKey,
      ...(this.options.label ? { label: this.options.label } : {}),
    });
    this.registered = true;
    if (this.agentSessionId) store.sessions.setAgentSessionId(this.id, this.agentSessionId);
    store.audit.record('SESSION_START', {
      session_id: this.id,
      agent: spec.id,
      cwd: this.options.cwd,
      pid: this.driver.pid,
      driver: this.driver.kind,
      ...(this.options.startedBy ? { started_by: this.options.startedBy } : {}),
    });
    if (approveFrom.length > 0) {
      const where = `${record.label} on ${record.host}`;
      store.channels.addMessage(
        this.id,
        'notice',
        `▶️ ${spec.displayName} started in ${where} (session ${this.id.slice(0, 8)})`,
      );
    }
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
    if (this.coordinator.hasOpenPrompt) return;
    let inputs: ReturnType<Store['channels']['takeInputs']>;
    try {
      inputs = this.options.store.channels.takeInputs(this.id);
    } catch (error) {
      return this.storageFailed('reading text sent from chats', error);
    }
    for (const input of inputs) {
      this.audit('TEXT_TYPED', { sent_by: input.sentBy, chars: [...input.text].length });
      firstPromptOf(this, this.options.store).sent(input.text);
      void this.driver.sendText(input.text).catch(() => undefined);
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
    if (event.type === 'status' && event.usage) this.recordUsage(event.usage);
    for (const listener of this.listeners) listener(event);
  }

  /** Kept in the store (when it changed) for the footer under the agent's messages in chat. */
  private recordUsage(usage: AgentUsage): void {
    const changed = JSON.stringify(usage) !== JSON.stringify(this.latestUsage);
    this.latestUsage = usage;
    if (changed) this.options.store.sessions.setUsage(this.id, usage);
  }

  /** The context's use at the answer about to be posted, once the status line told the window's size. */
  private contextAt(tokens: number): void {
    const window = this.latestUsage?.contextWindow;
    if (!window) return;
    this.recordUsage({
      ...this.latestUsage,
      contextPercent: Math.min(100, Math.round((tokens / window) * 100)),
    });
  }

  /** What the agent said before a tool, once per distinct text, for the session's chats (seed 001). */
  private postProgress(text: string): void {
    const note = this.progressNotes.take(text);
    if (note) this.options.store.channels.addMessage(this.id, 'notice', note);
  }

  /** Claude Code: a settings file whose hooks report to our receiver, and the secret they present. */
  private hookArguments(permissionTimeoutSeconds: number): { args: string[]; env: Record<string, string> } {
    const { spec, hooks, store } = this.options;
    if (!spec.hooks || !hooks) return { args: [], env: {} };
    const dir = path.join(store.dir, 'sessions', this.id);
    const settingsFile = writeClaudeHookSettings(dir, permissionTimeoutSeconds);
    const registration = hooks.register({
      onEvent: (event) => this.emit(event),
      onAgentSessionId: (agentSessionId) => store.sessions.setAgentSessionId(this.id, agentSessionId),
      onPermissionRequest: (prompt, payload, aborted) =>
        new Promise((resolve) => {
          let answer: object | null = null;
          const deliver = async (
            action: Parameters<typeof permissionDecision>[0],
            record: { decidedBy: string | null; choices: typeof prompt.choices },
          ) => {
            // Only while Claude still waits on the hook: once it gave up (answered at its own terminal), an
            // answer here would be reported as applied while nothing reached it.
            if (aborted.aborted) throw new Error('Claude no longer waits for this answer; nothing was sent');
            answer = permissionDecision(action, payload, record.decidedBy ?? 'agent-bridge');
            return describeReply(action, record.choices);
          };
          void this.coordinator.raiseFromHook(prompt, deliver, aborted).then(() => resolve(answer));
        }),
      ...(this.options.approveFrom?.length
        ? {
            onProgress: (text: string) => this.postProgress(text),
            onContextTokens: (tokens: number) => this.contextAt(tokens),
          }
        : {}),
    });
    this.cleanup.push(() => {
      registration.unregister();
      rmSync(dir, { recursive: true, force: true });
    });
    return { args: spec.hooks.args(settingsFile), env: registration.env };
  }

  private startRecording(): string {
    const { spec, cols, rows } = this.options;
    const stamp = new Date(this.options.clock.now()).toISOString().replace(/[:.]/g, '-');
    const file = path.join(recordingsDir(), `${stamp}-${spec.id}-${this.id.slice(0, 8)}.cast`);
    this.recorder = new AsciicastWriter(
      file,
      {
        width: cols,
        height: rows,
        timestamp: Math.floor(this.options.clock.now() / 1000),
        title: `agent-bridge run ${spec.id}`,
        command: [this.options.command, ...this.options.args].join(' '),
        env: { TERM: 'xterm-256color', SHELL: process.env.SHELL ?? '' },
      },
      this.options.clock,
      (error) => this.storageFailed('recording the terminal (the recording stops here)', error, { file }),
    );
    return file;
  }

  private recordEnd(exit: ExitInfo, status: 'completed' | 'crashed' | 'terminated'): void {
    const { store } = this.options;
    store.sessions.end(this.id, status, exit.exitCode);
    store.audit.record('SESSION_END', {
      session_id: this.id,
      exit_code: exit.exitCode,
      signal: exit.signal,
      status,
    });
    if (this.options.approveFrom?.length) {
      const how = exit.exitCode !== null ? `exit code ${exit.exitCode}` : `signal ${exit.signal ?? '?'}`;
      const name = this.options.spec.displayName;
      store.channels.addMessage(
        this.id,
        'notice',
        `⏹ ${name} session ${this.id.slice(0, 8)} ended (${status}, ${how})`,
      );
    }
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

  /** How the session ended: stopped on request, or on its own (a clean exit, or not). */
  endStatus(exit: ExitInfo): 'completed' | 'crashed' | 'terminated' {
    if (this.stopRequested) return 'terminated';
    return exit.exitCode === 0 ? 'completed' : 'crashed';
  }

  /**
   * After the agent exited (or was stopped). Open prompts fail ("the session ended"), unless `keepPrompts`:
   * a daemon shutting down leaves them pending in the store. Runs once: later calls share the first.
   */
  finish(
    exit: ExitInfo,
    status: 'completed' | 'crashed' | 'terminated',
    options: { keepPrompts?: boolean; reason?: string } = {},
  ): Promise<void> {
    this.finishing ??= this.finishOnce(exit, status, options);
    return this.finishing;
  }

  private async finishOnce(
    exit: ExitInfo,
    status: 'completed' | 'crashed' | 'terminated',
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
      this.recordEnd(exit, status);
    } catch (error) {
      this.storageFailed('recording the end of the session', error);
    }
  }
}

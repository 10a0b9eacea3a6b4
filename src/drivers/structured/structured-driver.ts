import type { Clock } from '../../core/clock.js';
import type { AgentEvent, AgentEventListener, ExitInfo } from '../../core/events.js';
import type { DetectedPrompt, ReplyAction } from '../../core/prompt.js';
import type { AgentDriver } from '../driver.js';
import type { AgentProcess, AgentProcessOptions } from './agent-process.js';
import type { ProtocolEffect } from './effects.js';
import { cleanText } from './clean-text.js';
import { proposedChange } from './edit-text.js';
import { PendingPrompts } from './pending-prompts.js';

/** How to start an agent in protocol mode: its command line, and the launch options its protocol carries. */
export interface StructuredLaunch extends AgentProcessOptions {
  /** The agent's own id of a conversation to resume. */
  resume?: string;
  skipPermissions?: boolean;
  model?: string;
}

export interface StructuredDriverOptions {
  clock: Clock;
  /** The agent's own id for this conversation, once known (kept for resume). */
  onAgentSessionId?: (id: string) => void;
  /** How long a question may wait for a person, in seconds, where the protocol needs a bound (hooks). */
  promptTimeoutSeconds?: number;
  /** The handshake must be done within this long (default 30 s, the spawn watchdog of seed 003). */
  startTimeoutMs?: number;
}

/** Seed 003's spawn watchdog: an agent that has not answered its handshake by then is not coming. */
export const START_TIMEOUT_MS = 30_000;

/**
 * What every structured driver shares: the agent's process, the event listeners, the prompts it waits on,
 * the text it is saying (sent as one `message` when it stops to do or ask something, or its turn ends), and
 * one turn at a time (messages sent meanwhile wait their turn, in order). Each protocol adds how a turn is
 * started and cancelled.
 */
export abstract class StructuredDriver implements AgentDriver {
  readonly kind = 'structured' as const;
  protected readonly prompts: PendingPrompts;
  private readonly listeners: AgentEventListener[] = [];
  /** Events from before anyone listened (said while starting), for the first listener. */
  private readonly early: AgentEvent[] = [];
  private readonly waiting: string[] = [];
  private saying = '';
  private busy = false;
  private exitInfo: ExitInfo | null = null;

  protected constructor(
    protected readonly agent: AgentProcess,
    protected readonly options: StructuredDriverOptions,
  ) {
    this.prompts = new PendingPrompts((event) => this.emit(event));
    void agent.exited.then((exit) => this.onExit(exit));
  }

  get pid(): number {
    return this.agent.pid;
  }

  get exited(): Promise<ExitInfo> {
    return this.agent.exited;
  }

  get running(): boolean {
    return this.agent.running && this.exitInfo === null;
  }

  /** A turn is running: the agent works on a message. */
  get isBusy(): boolean {
    return this.busy;
  }

  on(listener: AgentEventListener): () => void {
    this.listeners.push(listener);
    for (const event of this.early.splice(0)) listener(event);
    return () => {
      const at = this.listeners.indexOf(listener);
      if (at >= 0) this.listeners.splice(at, 1);
    };
  }

  async sendText(text: string): Promise<void> {
    if (!this.running) throw new Error('the agent has stopped');
    if (this.busy) this.waiting.push(text);
    else this.beginTurn(text);
  }

  answer(
    prompt: Pick<DetectedPrompt, 'key' | 'safeDefault'>,
    action: ReplyAction,
    decidedBy = 'agent-bridge',
  ): Promise<string> {
    return this.prompts.answer(prompt.key, action, decidedBy);
  }

  interrupt(): void {
    if (!this.busy) return;
    void this.cancelTurn().catch((error: unknown) => this.failed('cancelling', error));
  }

  async stop(): Promise<ExitInfo> {
    this.prompts.withdrawAll();
    this.waiting.splice(0);
    return this.agent.stop();
  }

  /** Sends `text` to the agent as one turn; resolves when the turn has ended. */
  protected abstract runTurn(text: string): Promise<void>;

  /** Asks the agent to stop the running turn (its protocol's cancel). */
  protected abstract cancelTurn(): Promise<void>;

  /** Text the agent is saying, as it streams. */
  protected say(text: string): void {
    this.saying += text;
  }

  /** What the agent said so far goes out as one message (before what it now does or asks). */
  protected flushSaid(): void {
    const text = this.saying.trim();
    this.saying = '';
    if (text) this.emit({ type: 'message', text, source: 'protocol' });
  }

  /** Applies what a converter made of a protocol message. */
  protected apply(effects: readonly ProtocolEffect[]): void {
    for (const effect of effects) {
      if (effect.type === 'say') this.say(effect.text);
      else if (effect.type === 'agent_session') this.options.onAgentSessionId?.(effect.id);
      else this.emit(effect);
    }
  }

  /** A proposed change too long for a prompt's detail goes to the chat whole first (see proposedChange). */
  protected showProposed(changes: ReadonlyArray<{ file: string; diff: string }>): void {
    for (const change of changes) {
      const text = proposedChange(change.file, change.diff);
      if (text) this.emit({ type: 'message', text, source: 'protocol' });
    }
  }

  /** Words for the agent after this turn (the reason a person gave for a "No"), before anything waiting. */
  protected followUp(text: string): void {
    this.waiting.unshift(text);
  }

  protected emit(raw: AgentEvent): void {
    const event = cleaned(raw);
    if (event.type === 'prompt' || event.type === 'activity') this.flushSaid();
    if (this.listeners.length === 0) this.early.push(event);
    for (const listener of this.listeners) listener(event);
  }

  protected failed(what: string, error: unknown): void {
    const reason = error instanceof Error ? error.message : String(error);
    this.emit({ type: 'activity', phase: 'progress', text: `${what} failed: ${reason}` });
  }

  private beginTurn(text: string): void {
    this.busy = true;
    this.emit({ type: 'status', state: 'busy' });
    void this.runTurn(text)
      .catch((error: unknown) => {
        if (this.running) this.emit({ type: 'message', text: `⚠️ ${errorText(error)}`, source: 'protocol' });
      })
      .finally(() => this.turnEnded());
  }

  private turnEnded(): void {
    this.flushSaid();
    this.prompts.withdrawAll();
    this.busy = false;
    if (!this.running) return;
    const next = this.waiting.shift();
    if (next !== undefined) this.beginTurn(next);
    else this.emit({ type: 'status', state: 'idle' });
  }

  private onExit(exit: ExitInfo): void {
    this.flushSaid();
    this.prompts.withdrawAll();
    const stderr = this.agent.stderr;
    this.exitInfo =
      exit.exitCode !== 0 && exit.signal === null && stderr
        ? { ...exit, reason: stderr.split('\n').slice(-3).join(' ').slice(0, 300) }
        : exit;
    this.emit({ type: 'exit', exit: this.exitInfo });
  }
}

/** The agent's words, as they reach people: text without control characters (see cleanText). */
function cleaned(event: AgentEvent): AgentEvent {
  if (event.type === 'message' || event.type === 'activity') return { ...event, text: cleanText(event.text) };
  return event;
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (error && typeof error === 'object' && 'message' in error) return String(error.message);
  return String(error);
}

/**
 * Runs an agent's handshake, bounded by the start timeout: an agent that fails, exits or says nothing in time
 * is stopped, and the error says why (with the end of what it wrote to stderr).
 */
export async function startWithin(
  agent: AgentProcess,
  options: StructuredDriverOptions,
  name: string,
  handshake: () => Promise<void>,
): Promise<void> {
  const ms = options.startTimeoutMs ?? START_TIMEOUT_MS;
  let timer: { cancel(): void } | null = null;
  const timeout = new Promise<never>((_, reject) => {
    timer = options.clock.after(ms, () => reject(new Error(`${name} did not answer within ${ms / 1000} s`)));
  });
  const exited = agent.exited.then((exit) => {
    throw new Error(`${name} exited (${exit.exitCode ?? exit.signal}) before it was ready`);
  });
  try {
    await Promise.race([handshake(), timeout, exited]);
  } catch (error) {
    await agent.stop();
    const stderr = agent.stderr.split('\n').slice(-5).join('\n');
    throw new AgentStartError(`${(error as Error).message}${stderr ? `: ${stderr}` : ''}`);
  } finally {
    (timer as { cancel(): void } | null)?.cancel();
  }
}

/** A structured agent could not be started: the reason, in one line where possible. */
export class AgentStartError extends Error {
  override name = 'AgentStartError';
}

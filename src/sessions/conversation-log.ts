import type {
  ConversationEntry,
  ConversationExit,
  ConversationSnapshot,
  ConversationState,
  ConversationUpdate,
  SentOutcome,
} from '../channels/web/conversation-types.js';
import type { Clock } from '../core/clock.js';
import type { AgentEvent, AgentUsage } from '../core/events.js';
import { promptHeadline } from '../core/prompt-headline.js';
import { EXCERPT_MAX_CHARS } from '../core/prompt.js';
import { redactSecrets } from '../core/redact.js';
import { readEditMessage, readPlanText } from '../drivers/structured/edit-text.js';

/** How much of one conversation is kept in memory: the newest entries, each cut to a size, all within a total. */
export interface LogLimits {
  entries: number;
  /** A text (a message, a diff) longer than this is cut, saying how much was left out. */
  entryChars: number;
  totalChars: number;
}

export const LOG_LIMITS: LogLimits = { entries: 500, entryChars: 64_000, totalChars: 1_000_000 };

type NewEntry = ConversationEntry extends infer E
  ? E extends unknown
    ? Omit<E, 'id' | 'at'>
    : never
  : never;
type ToolEntry = Extract<ConversationEntry, { kind: 'tool' }>;

/**
 * One structured session's conversation, as the web UI shows it: its events turned into entries (the agent's
 * words, tool cards that start and end, diffs, plans, what it asked), the messages people sent it, its state
 * and usage. Bounded (LOG_LIMITS) and redacted: nothing secret is kept or shown, whoever said it.
 */
export class ConversationLog {
  private readonly entries: ConversationEntry[] = [];
  private nextId = 1;
  private chars = 0;
  private dropped = 0;
  private state: ConversationState = 'idle';
  private exit: ConversationExit | null = null;
  /** Tool cards still running, oldest first: an end pairs with the newest start it ends. */
  private readonly running: ToolEntry[] = [];
  private readonly listeners = new Set<(update: ConversationUpdate) => void>();

  constructor(
    readonly sessionId: string,
    private readonly clock: Clock,
    private usage: AgentUsage | null = null,
    private readonly limits: LogLimits = LOG_LIMITS,
  ) {}

  get ended(): boolean {
    return this.exit !== null;
  }

  /** Busy with a turn, idle waiting for a message (exact: the protocol says when a turn starts and ends). */
  get currentState(): ConversationState {
    return this.state;
  }

  snapshot(canSend: boolean): ConversationSnapshot {
    return {
      sessionId: this.sessionId,
      entries: [...this.entries],
      dropped: this.dropped,
      state: this.state,
      usage: this.usage,
      exit: this.exit,
      canSend: canSend && !this.ended,
    };
  }

  subscribe(listener: (update: ConversationUpdate) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** What the session's driver said or did. */
  record(event: AgentEvent): void {
    if (event.type === 'message') this.message(event.text);
    else if (event.type === 'activity') this.activity(event.phase, event.tool ?? 'tool', event.text);
    else if (event.type === 'prompt')
      this.add({
        kind: 'prompt',
        promptKind: event.prompt.kind,
        text: this.text(promptHeadline(event.prompt.excerpt, EXCERPT_MAX_CHARS)),
      });
    else if (event.type === 'status') this.status(event.state, event.usage);
    else if (event.type === 'exit') this.onExit(event.exit);
  }

  /** A person's message, as it was sent (redacted). */
  sent(text: string, outcome: SentOutcome): void {
    this.add({ kind: 'person', text: this.text(text), outcome });
  }

  /** A diff or a plan is shown as one (the drivers write them with edit-text.ts); anything else is words. */
  private message(raw: string): void {
    const edit = readEditMessage(raw);
    const plan = edit ? null : readPlanText(raw);
    if (edit) {
      const { file, diff, proposed } = edit;
      this.add({ kind: 'diff', file: this.text(file), diff: this.text(diff), proposed });
    } else if (plan) {
      const steps = plan.map((step) => ({ text: this.text(step.content), status: step.status }));
      this.add({ kind: 'plan', steps });
    } else this.add({ kind: 'agent', text: this.text(raw) });
  }

  private activity(phase: 'start' | 'end' | 'progress', tool: string, text: string): void {
    if (phase === 'end') return this.toolEnded(tool, text);
    if (phase === 'progress') return void this.add({ kind: 'note', text: this.text(text) });
    const card = this.add({ kind: 'tool', tool: this.text(tool), text: this.text(text), status: 'running' });
    this.running.push(card as ToolEntry);
  }

  /**
   * The end says what the start said, with why it failed after it when it did ("… (failed)"); the tool's name
   * may differ (ACP's update often names no kind), so the newest running card with that text ends.
   */
  private toolEnded(rawTool: string, rawText: string): void {
    const text = this.text(rawText);
    const at = this.running.findLastIndex((card) => text === card.text || text.startsWith(`${card.text} (`));
    const started = at >= 0 ? this.running.splice(at, 1)[0]! : null;
    if (!started) {
      const failed = /\((failed|declined|cancell?ed)\)$/.test(text);
      return void this.add({
        kind: 'tool',
        tool: this.text(rawTool),
        text,
        status: failed ? 'failed' : 'done',
      });
    }
    this.replace({ ...started, text, status: text === started.text ? 'done' : 'failed' });
  }

  private status(state: 'busy' | 'idle' | 'starting' | undefined, usage: AgentUsage | undefined): void {
    if (this.ended) return;
    const next = state ?? this.state;
    const nextUsage = usage ?? this.usage;
    if (next === this.state && nextUsage === this.usage) return;
    this.state = next;
    this.usage = nextUsage;
    this.emit({ type: 'status', state: next, usage: nextUsage });
  }

  private onExit(exit: { exitCode: number | null; signal: string | null }): void {
    if (this.ended) return;
    this.exit = { exitCode: exit.exitCode, signal: exit.signal };
    this.state = 'exited';
    // Whatever still ran ended with the agent.
    for (const card of this.running.splice(0)) this.replace({ ...card, status: 'failed' });
    this.emit({ type: 'exit', exit: this.exit });
  }

  /** Redacted, and cut to the entry limit saying how much is left out. */
  private text(raw: string): string {
    const text = redactSecrets(raw);
    if (text.length <= this.limits.entryChars) return text;
    const left = text.length - this.limits.entryChars;
    return `${text.slice(0, this.limits.entryChars)}\n… (${left} more characters not shown)`;
  }

  private add(fields: NewEntry): ConversationEntry {
    const entry = { ...fields, id: this.nextId++, at: this.clock.now() } as ConversationEntry;
    this.entries.push(entry);
    this.chars += sizeOf(entry);
    while (
      this.entries.length > 1 &&
      (this.entries.length > this.limits.entries || this.chars > this.limits.totalChars)
    )
      this.dropOldest();
    this.emit({ type: 'entry', entry });
    return entry;
  }

  private replace(entry: ConversationEntry): void {
    const at = this.entries.findIndex((e) => e.id === entry.id);
    if (at < 0) return;
    this.chars += sizeOf(entry) - sizeOf(this.entries[at]!);
    this.entries[at] = entry;
    this.emit({ type: 'entry', entry });
  }

  private dropOldest(): void {
    const gone = this.entries.shift()!;
    this.chars -= sizeOf(gone);
    this.dropped++;
    const running = this.running.findIndex((card) => card.id === gone.id);
    if (running >= 0) this.running.splice(running, 1);
  }

  private emit(update: ConversationUpdate): void {
    for (const listener of this.listeners) listener(update);
  }
}

/** An entry's weight: the characters of its texts (the rest is small and fixed). */
function sizeOf(entry: ConversationEntry): number {
  switch (entry.kind) {
    case 'diff':
      return entry.file.length + entry.diff.length;
    case 'plan':
      return entry.steps.reduce((sum, step) => sum + step.text.length, 0);
    case 'tool':
      return entry.tool.length + entry.text.length;
    default:
      return entry.text.length;
  }
}

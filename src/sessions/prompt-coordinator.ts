import type { Clock, TimerHandle } from '../core/clock.js';
import type { PromptKind } from '../core/events.js';
import { describeReply, type DetectedPrompt, type ReplyAction } from '../core/prompt.js';
import { OPEN_STATUSES } from '../core/prompt-state.js';
import { redactSecrets } from '../core/redact.js';
import { ECHO_SUPPRESSION_MS } from '../drivers/terminal/detector/prompt-detector.js';
import type { AuditLog } from '../store/audit/audit-log.js';
import type { PromptRecord, PromptStore } from '../store/prompt-store.js';

/** How a raised prompt receives its answer: keys into the PTY, a hook's HTTP response, a protocol reply. */
export type Deliver = (action: ReplyAction, record: PromptRecord) => Promise<string>;

export interface PromptObserver {
  opened?(record: PromptRecord): void;
  closed?(record: PromptRecord): void;
}

export interface CoordinatorOptions {
  sessionId: string;
  prompts: PromptStore;
  audit: AuditLog;
  clock: Clock;
  ttlMs: (kind: PromptKind) => number;
  /**
   * The agent reports permission prompts through hooks too: a permission dialog seen on screen waits this long
   * for its exact twin before it is raised on its own (hooks start a process, the screen is quicker).
   */
  hookGraceMs?: number;
  observers?: PromptObserver[];
  /** Turns a stored secret answer back into words, in the session that holds the key (null: it cannot). */
  openSealed?: (reply: Extract<ReplyAction, { type: 'sealed' }>) => ReplyAction;
  /** No prompt is shown or queued any more: text held back meanwhile may be typed now. */
  onClear?: () => void;
  /**
   * The store failed (a full or read-only disk): said here, and the session goes on. A prompt that could not
   * be stored can still be answered at the agent's own terminal.
   */
  onStorageError?: (what: string, error: unknown) => void;
}

interface Entry {
  detected: DetectedPrompt;
  source: 'screen' | 'hook' | 'protocol';
  /** Null: taken over from another controller, its hook not relayed again yet. */
  deliver: Deliver | null;
  record: PromptRecord | null;
  ttl: TimerHandle | null;
  /** Screen keys that show this same prompt (Claude draws its dialog while the hook waits). */
  aliases: Set<string>;
  settled: Promise<void>;
  settle: () => void;
}

const HOOK_GONE = 'its hook went away while no agent-bridge controlled the session; nothing was sent';

/** A stored prompt as its driver raised it (to take it over). */
export function detectedOf(record: PromptRecord): DetectedPrompt {
  return {
    kind: record.kind,
    confidence: record.confidence,
    excerpt: record.excerpt,
    detail: record.detail,
    choices: record.choices,
    safeDefault: record.safeDefault,
    ...(record.allowForSessionChoice !== null ? { allowForSessionChoice: record.allowForSessionChoice } : {}),
    key: record.screenKey ?? `stored|${record.id}`,
    multiline: record.multiline,
    secret: record.secret,
  };
}

/**
 * The prompt state machine of one session, driven by the store's guarded transitions (seed 004 §6): at most
 * one prompt awaits a reply, later ones queue; answers from any channel or process are injected once; the
 * TTL applies the safe default; a prompt answered at the agent's own terminal is closed as such. The session
 * calls poke() whenever the store changed (an answer may have come from another process).
 */
export class PromptCoordinator {
  private active: Entry | null = null;
  private readonly queue: Entry[] = [];
  private applying = false;
  /** Injections in flight, so the session can let them finish before it closes the store. */
  private readonly injecting = new Set<Promise<void>>();
  private stopped = false;
  /** Screen permission prompts waiting for their hook twin: key -> pending raise. */
  private readonly awaitingHook = new Map<
    string,
    { detected: DetectedPrompt; deliver: Deliver; timer: TimerHandle }
  >();
  /**
   * Per prompt taken over: the events the audit log already holds for it. A change made here whose line is
   * among them was written by its previous controller, killed before the change committed (see audited()):
   * the change commits with no second line. (A committed change is never made again: the store refuses it.)
   */
  private readonly saidBefore = new Map<string, Set<string>>();

  constructor(private readonly options: CoordinatorOptions) {}

  get current(): PromptRecord | null {
    return this.active?.record ?? null;
  }

  /** A prompt is shown, queued, or seen on screen and waiting for its hook: typed text must wait. */
  get hasOpenPrompt(): boolean {
    return this.active !== null || this.queue.length > 0 || this.awaitingHook.size > 0;
  }

  /**
   * A prompt seen on screen. Claude's dialog under a pending hook is the hook's prompt, not a new one; with
   * hooks on, a permission dialog first waits briefly for the hook to report it exactly.
   */
  raiseFromScreen(detected: DetectedPrompt, deliver: Deliver): void {
    const hookEntry = [this.active, ...this.queue].find(
      (e) => e?.source === 'hook' && detected.kind === 'permission',
    );
    if (hookEntry) {
      hookEntry.aliases.add(detected.key);
      return;
    }
    const grace = this.options.hookGraceMs ?? 0;
    if (grace > 0 && detected.kind === 'permission') {
      const timer = this.options.clock.after(grace, () => {
        this.awaitingHook.delete(detected.key);
        this.enqueue({ detected, source: 'screen', deliver });
      });
      this.awaitingHook.set(detected.key, { detected, deliver, timer });
      return;
    }
    this.enqueue({ detected, source: 'screen', deliver });
  }

  /** An exact prompt from a hook; resolves when it is answered, expires or is closed. */
  raiseFromHook(detected: DetectedPrompt, deliver: Deliver, aborted: AbortSignal): Promise<void> {
    // The same hook, relayed again to this controller after the last one went: the prompt it raised then.
    const taken = this.takenOver('hook', detected.key);
    if (taken) {
      taken.deliver = deliver;
      aborted.addEventListener('abort', () => this.closeLocally(taken));
      return taken.settled;
    }
    const twins = [...this.awaitingHook.entries()];
    for (const [, pending] of twins) pending.timer.cancel();
    this.awaitingHook.clear();
    const screenEntry =
      this.active?.source === 'screen' && this.active.detected.kind === 'permission' ? this.active : null;
    if (!screenEntry?.record) {
      const entry = this.enqueue({ detected, source: 'hook', deliver });
      for (const [key] of twins) entry.aliases.add(key);
      aborted.addEventListener('abort', () => this.closeLocally(entry));
      return entry.settled;
    }
    // The dialog was raised from the screen first (the hook was slow): answer through the hook, it is exact.
    screenEntry.aliases.add(screenEntry.detected.key);
    screenEntry.source = 'hook';
    screenEntry.deliver = deliver;
    const record = screenEntry.record;
    this.safely('recording the exact prompt', () => {
      this.options.prompts.markExact(record.id, 'hook', detected.detail);
      screenEntry.record = this.options.prompts.get(record.id) ?? record;
    });
    aborted.addEventListener('abort', () => this.closeLocally(screenEntry));
    return screenEntry.settled;
  }

  /** An exact prompt from the agent's own protocol (a structured driver): raised as it is, no twins. */
  raiseFromProtocol(detected: DetectedPrompt, deliver: Deliver): void {
    this.enqueue({ detected, source: 'protocol', deliver });
  }

  /** The agent no longer asks it (its turn was cancelled or ended): closed unanswered, everywhere. */
  protocolPromptGone(key: string): void {
    const entry = [this.active, ...this.queue].find((e) => e?.detected.key === key);
    if (entry) this.closeLocally(entry, 'canceled');
  }

  /** The screen no longer shows a prompt: someone answered it at the terminal (or it went away). */
  screenPromptGone(key: string): void {
    const pending = this.awaitingHook.get(key);
    if (pending) {
      pending.timer.cancel();
      this.awaitingHook.delete(key);
      return;
    }
    const entry = [this.active, ...this.queue].find(
      (e) => e && (e.detected.key === key || e.aliases.has(key)),
    );
    if (entry) this.closeLocally(entry);
  }

  /**
   * Takes over the prompts a previous controller of the session left unfinished (it died, or let go): typed
   * ones are resolved; the others wait here again, as they stand in the store (an answer recorded meanwhile is
   * typed at the next poke(), at most once: see Deliver). `deliverFor` is how each reaches the agent now; null
   * for a hook's prompt until its hook is relayed again (raiseFromHook).
   */
  async adopt(records: PromptRecord[], deliverFor: (record: PromptRecord) => Deliver | null): Promise<void> {
    const { prompts, clock } = this.options;
    await this.readSaidBefore(records);
    for (const taken of records) {
      if (taken.status === 'injected') {
        this.safely('resolving a typed answer', () => prompts.transition(taken.id, 'resolved'));
        continue;
      }
      const record = this.routeUnrouted(taken);
      let settle!: () => void;
      const settled = new Promise<void>((resolve) => (settle = resolve));
      const source = record.source === 'hook' || record.source === 'protocol' ? record.source : 'screen';
      const entry: Entry = {
        detected: detectedOf(record),
        source,
        deliver: deliverFor(record),
        record,
        ttl: null,
        aliases: new Set(),
        settled,
        settle,
      };
      if (OPEN_STATUSES.includes(record.status))
        entry.ttl = clock.after(Math.max(0, record.expiresAt - clock.now()), () => void this.expire(entry));
      if (this.active) this.queue.push(entry);
      else this.active = entry;
    }
  }

  /**
   * A prompt its previous controller stored and died before routing (killed between the two writes): routed
   * now, as raising it would have, so the chats and `approvals` see it waiting. Others are returned as they are.
   */
  private routeUnrouted(record: PromptRecord): PromptRecord {
    if (record.status !== 'created' && record.status !== 'routed') return record;
    this.safely('routing a prompt taken over', () => this.route(record, { taken_over: true }));
    return this.safely('reading a prompt', () => this.options.prompts.get(record.id)) ?? record;
  }

  /** A stored prompt (`created`, or `routed` by a controller that died) routed: it waits for a reply now. */
  private route(record: PromptRecord, fields: Record<string, unknown> = {}): void {
    const { prompts } = this.options;
    if (record.status === 'created') prompts.transition(record.id, 'routed');
    prompts.transition(record.id, 'awaiting_reply');
    this.audit('PROMPT_ROUTED', record, { channels: ['terminal', 'cli'], ...fields });
  }

  /**
   * The prompts taken over from a hook that was not relayed again (Claude gave up on it while no one
   * controlled the session): each is closed, as answered when its host says the answer went out.
   */
  async dropUnrelayed(wasAnswered: (record: PromptRecord) => Promise<boolean>): Promise<void> {
    for (const entry of [this.active, ...this.queue]) {
      if (!entry?.record || entry.deliver) continue;
      const record = entry.record;
      const answered = record.status === 'reply_received' && (await wasAnswered(record));
      if (answered) {
        const value = describeReply(record.reply!, record.choices);
        this.safely('recording an answer', () => {
          this.recordInjected(record, value, value, 'operator');
          this.options.prompts.transition(record.id, 'resolved');
        });
        this.finish(entry);
      } else this.closeLocally(entry, 'failed');
    }
  }

  /** Applies decisions recorded in the store (by any process); the session calls it when the store changes. */
  poke(): void {
    void this.applyDecisions().catch((error: unknown) => this.storageFailed('reading answers', error));
  }

  /** Stops working on prompts but leaves them as they are in the store (a daemon shutting down gracefully). */
  detach(): void {
    this.stopped = true;
    for (const entry of [this.active, ...this.queue.splice(0)]) {
      entry?.ttl?.cancel();
      entry?.settle();
    }
    for (const pending of this.awaitingHook.values()) pending.timer.cancel();
    this.awaitingHook.clear();
    this.active = null;
  }

  /** The session ended: open prompts can no longer be answered. */
  stop(reason: string): void {
    this.stopped = true;
    for (const entry of [this.active, ...this.queue.splice(0)]) {
      if (!entry?.record) continue;
      entry.ttl?.cancel();
      const record = entry.record;
      this.safely('closing a prompt', () =>
        this.audited(
          () => this.options.prompts.close(record.id, 'failed', 'agent-bridge', reason),
          'PROMPT_FAILED',
          record,
          { reason },
        ),
      );
      entry.settle();
    }
    this.active = null;
  }

  private enqueue(partial: Pick<Entry, 'detected' | 'source' | 'deliver'>): Entry {
    let settle!: () => void;
    const settled = new Promise<void>((resolve) => (settle = resolve));
    const entry: Entry = { ...partial, record: null, ttl: null, aliases: new Set(), settled, settle };
    this.queue.push(entry);
    if (!this.active) this.activateNext();
    return entry;
  }

  private activateNext(): void {
    if (this.stopped) return;
    const entry = this.queue.shift();
    this.active = entry ?? null;
    if (!entry) return this.options.onClear?.();
    const { prompts, clock, ttlMs } = this.options;
    try {
      // Stored and routed in one write: a controller killed in between cannot leave it stored but unrouted.
      entry.record = prompts.atomically(() => {
        const record = prompts.create(
          this.options.sessionId,
          entry.detected,
          ttlMs(entry.detected.kind),
          entry.source,
        );
        this.audit('PROMPT_DETECTED', record, {
          kind: record.kind,
          confidence: record.confidence,
          source: entry.source,
          excerpt: record.excerpt,
        });
        this.route(record);
        return prompts.get(record.id) ?? record;
      });
    } catch (error) {
      // Not stored, so nobody elsewhere can answer it; the agent's own terminal still can.
      this.storageFailed('storing a prompt (answer it in the terminal)', error);
      if (!entry.record) return this.finish(entry);
    }
    const record = entry.record;
    entry.ttl = clock.after(Math.max(0, record.expiresAt - clock.now()), () => void this.expire(entry));
    for (const observer of this.options.observers ?? []) observer.opened?.(record);
  }

  private closeLocally(entry: Entry, as: 'resolved' | 'canceled' | 'failed' = 'resolved'): void {
    const record = entry.record;
    if (!record) return this.finish(entry); // still queued: it never reached anyone
    // Closed only while still open: an answer being injected right now makes its own dialog go away.
    const event =
      as === 'resolved' ? 'PROMPT_RESOLVED_LOCALLY' : as === 'canceled' ? 'PROMPT_CANCELED' : 'PROMPT_FAILED';
    const closed = this.safely('closing a prompt answered at the terminal', () =>
      this.audited(
        () =>
          as === 'resolved'
            ? this.options.prompts.close(record.id, 'resolved', 'terminal:local', 'answered at the terminal')
            : as === 'canceled'
              ? this.options.prompts.close(record.id, 'canceled', 'agent', 'the agent no longer asks')
              : this.closeGone(record),
        event,
        record,
        { reason: as === 'failed' ? HOOK_GONE : 'the agent no longer asks' },
      ),
    );
    if (closed === false) return;
    this.finish(entry);
  }

  /** A hook's prompt whose hook went away: failed, whether it was still open or decided and not sent. */
  private closeGone(record: PromptRecord): boolean {
    const { prompts } = this.options;
    return (
      prompts.close(record.id, 'failed', 'agent-bridge', HOOK_GONE) ||
      prompts.transition(record.id, 'failed', HOOK_GONE)
    );
  }

  /** A prompt taken over from another controller, raised again by the same `source` with the same key. */
  private takenOver(source: Entry['source'], key: string): Entry | null {
    const stored = redactSecrets(key);
    const entry = [this.active, ...this.queue].find(
      (e) => e?.source === source && e.deliver === null && e.record?.screenKey === stored,
    );
    return entry ?? null;
  }

  private async expire(entry: Entry): Promise<void> {
    const record = entry.record;
    if (!record) return;
    const { prompts } = this.options;
    // Expired and audited in one write (see audited()).
    const expired = this.safely('expiring a prompt', () =>
      prompts.atomically(() => {
        const changed = prompts.expire(record.id);
        if (changed)
          this.audit('PROMPT_EXPIRED', changed, {
            safe_default: changed.reply ? describeReply(changed.reply, changed.choices) : null,
          });
        return changed;
      }),
    );
    if (expired === undefined) return this.finish(entry);
    if (!expired) return; // an answer won the race
    if (expired.reply) await this.inject(entry, expired, 'timeout_default');
    else this.finish(entry);
  }

  private async applyDecisions(): Promise<void> {
    if (this.applying || this.stopped) return;
    this.applying = true;
    try {
      for (const record of this.options.prompts.decidedNotInjected(this.options.sessionId)) {
        const entry = this.active?.record?.id === record.id ? this.active : null;
        if (!entry) {
          this.options.prompts.transition(record.id, 'failed', 'the prompt is no longer on screen');
          continue;
        }
        await this.inject(entry, record, record.status === 'expired' ? 'timeout_default' : 'operator');
      }
    } finally {
      this.applying = false;
    }
  }

  /** Resolves when no injection is in flight. */
  async settled(): Promise<void> {
    while (this.injecting.size > 0) await Promise.all([...this.injecting]);
  }

  private inject(entry: Entry, record: PromptRecord, source: 'operator' | 'timeout_default'): Promise<void> {
    const work = this.injectNow(entry, record, source).finally(() => this.injecting.delete(work));
    this.injecting.add(work);
    return work;
  }

  private async injectNow(
    entry: Entry,
    record: PromptRecord,
    source: 'operator' | 'timeout_default',
  ): Promise<void> {
    const deliver = entry.deliver;
    if (!deliver) return; // its hook is not relayed again yet: dropUnrelayed() decides
    entry.ttl?.cancel();
    const { prompts, clock } = this.options;
    const stored = describeReply(record.reply!, record.choices);
    try {
      const action = this.opened(record.reply!);
      const typed = await deliver(action, record);
      // A secret's keys are never kept: the reply row says what was typed as its length only.
      const value = record.reply!.type === 'sealed' ? stored : typed;
      this.safely('recording an answer', () => this.recordInjected(record, value, stored, source));
      await clock.sleep(ECHO_SUPPRESSION_MS);
      this.safely('recording an answer', () => prompts.transition(record.id, 'resolved'));
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.safely('recording a failed answer', () => {
        prompts.forgetSealed(record.id);
        this.audited(() => prompts.transition(record.id, 'failed', reason), 'PROMPT_FAILED', record, {
          reason,
        });
      });
    }
    this.finish(entry);
  }

  /** The answer recorded as typed (`value`, the reply row's), its REPLY_INJECTED line saying `said`. */
  private recordInjected(
    record: PromptRecord,
    value: string,
    said: string,
    source: 'operator' | 'timeout_default',
  ): void {
    const { prompts } = this.options;
    this.audited(() => prompts.markInjected(record, value, source), 'REPLY_INJECTED', record, {
      value: said,
      source,
      decided_by: record.decidedBy,
    });
  }

  /** The events the log holds for the prompts taken over: one read from its end back to the oldest's creation. */
  private async readSaidBefore(records: PromptRecord[]): Promise<void> {
    const taken = new Set(records.map((record) => record.id));
    if (taken.size === 0) return;
    const since = Math.min(...records.map((record) => record.createdAt));
    const entries = await this.options.audit
      .entriesSince(since, (entry) => typeof entry.prompt_id === 'string' && taken.has(entry.prompt_id))
      .catch((error: unknown) => {
        this.storageFailed('reading the audit log', error);
        return [];
      });
    for (const entry of entries) {
      const id = entry.prompt_id as string;
      if (!this.saidBefore.has(id)) this.saidBefore.set(id, new Set());
      this.saidBefore.get(id)!.add(entry.event);
    }
  }

  /** A sealed secret is opened only here, right before it is typed. */
  private opened(reply: ReplyAction): ReplyAction {
    if (reply.type !== 'sealed') return reply;
    if (!this.options.openSealed || reply.box === null)
      throw new Error('the secret answer can no longer be read (the session restarted); nothing was typed');
    return this.options.openSealed(reply);
  }

  /** Runs a store operation; a failure is reported and undefined returned, and the session goes on. */
  private safely<T>(what: string, operation: () => T): T | undefined {
    try {
      return operation();
    } catch (error) {
      this.storageFailed(what, error);
      return undefined;
    }
  }

  private storageFailed(what: string, error: unknown): void {
    if (this.options.onStorageError) this.options.onStorageError(what, error);
  }

  private finish(entry: Entry): void {
    entry.ttl?.cancel();
    entry.settle();
    const at = this.queue.indexOf(entry);
    if (at >= 0) this.queue.splice(at, 1);
    const record = entry.record;
    if (record) {
      const final = this.safely('reading a prompt', () => this.options.prompts.get(record.id));
      if (final) for (const observer of this.options.observers ?? []) observer.closed?.(final);
    }
    if (this.active === entry) {
      this.active = null;
      this.activateNext();
    }
  }

  /**
   * A prompt's change and its audit line in one write: a controller killed between the two (serve killed with
   * -9, as the kill campaign does) left a prompt injected with no REPLY_INJECTED line.
   */
  private audited(
    change: () => boolean,
    event: Parameters<AuditLog['record']>[0],
    record: PromptRecord,
    fields: Record<string, unknown>,
  ): boolean {
    return this.options.prompts.atomically(() => {
      const changed = change();
      if (changed) this.audit(event, record, fields);
      return changed;
    });
  }

  private audit(
    event: Parameters<AuditLog['record']>[0],
    record: PromptRecord,
    fields: Record<string, unknown>,
  ): void {
    // Its previous controller wrote this line and died before the change committed: the line stands.
    if (this.saidBefore.get(record.id)?.delete(event)) return;
    this.safely('writing the audit log', () =>
      this.options.audit.record(event, { session_id: record.sessionId, prompt_id: record.id, ...fields }),
    );
  }
}

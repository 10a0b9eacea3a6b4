import type { Channel, ChatTarget, ChatUser, InboundEvent } from '../channels/contract.js';
import { answerForButton, decodeButton, type PromptButton } from '../channels/callback-data.js';
import type { Clock, TimerHandle } from '../core/clock.js';
import type { IsAlive } from '../core/process-ref.js';
import { ownProcessRef } from '../drivers/terminal/process-tree.js';
import { OPEN_STATUSES } from '../core/prompt-state.js';
import { formatStatusFooter } from '../core/status-footer.js';
import { WindowLimiter } from '../core/window-limiter.js';
import { outputsDir, uploadsDir } from '../store/paths.js';
import type { SessionRecord } from '../store/session-store.js';
import type { Store } from '../store/store.js';
import { answerPrompt, type AnswerOutcome, type AnswerRequest } from './answer-prompt.js';
import { parseCommand, runChatCommand, targetSession, type CommandContext } from './chat-commands.js';
import { ChatBacklog, MAX_HELD_PER_CHAT, MAX_SEND_TRIES, type SendResult } from './chat-backlog.js';
import { prepareMessage, sendPrepared, type PreparedMessage } from './delivery.js';
import { promptOutcome, promptView } from './prompt-view.js';
import { reapDeadSessions } from './session-liveness.js';
import { SharedStoreChanges } from './store-watcher.js';
import { sendTextToSession, textOutcomeNotice } from './typed-text.js';
import { saveUploads } from './uploads.js';

/** How often a hosting relay renews its lease and looks for sessions whose agent-bridge died. */
const HEARTBEAT_MS = 5_000;
/** A prompt or message that could not be sent is tried again after this long (at once on reconnecting). */
const RETRY_SEND_MS = 5_000;
/** Inbound answers per session per minute before routing pauses (seed 004 §11.7). */
const CALLBACKS_PER_MINUTE = 10;

/** An agent message ready for a chat: its text and files read, its caption and footer fixed. */
interface OutgoingMessage {
  messageId: number;
  prepared: PreparedMessage;
  options: Parameters<typeof sendPrepared>[3];
}

/** The question on the form that asks for typed words ("Other…"), by kind of prompt. */
const TEXT_FORM_TITLES: Partial<Record<string, string>> = {
  permission: 'Deny, and say why',
  plan: 'Reject, with feedback',
  question: 'Your own answer',
};

export interface RelayOptions {
  channel: Channel;
  store: Store;
  clock: Clock;
  /** Chats that receive prompts and messages. */
  chats: ChatTarget[];
  /** People who may answer or type; everyone else is ignored and audited. */
  allowedUsers: Set<string>;
  /** Longer agent messages go as a file (seed 000: 1500 characters). */
  outputThreshold: number;
  isAlive: IsAlive;
  log?: (line: string) => void;
  /** Told after an answer was recorded, so a session in this process can apply it at once. */
  onAnswer?: () => void;
  /** Which sessions this relay serves; default: those that asked for this channel (`--approve-from`). */
  serves?: (session: SessionRecord) => boolean;
  /**
   * One process at a time (a bot token allows one poller): take the channel's lease. A terminal is not
   * exclusive; it then keeps its own books under `bookkeeping` (e.g. `terminal:<pid>`).
   */
  exclusive?: boolean;
  bookkeeping?: string;
  /** Where a session's prompts and messages go; default: `chats`. The daemon maps repositories to chats. */
  chatsFor?: (session: SessionRecord) => ChatTarget[];
  /**
   * The host sees events first and returns true when it handled them: plain text and files (not replies to
   * prompts), buttons that are not prompt answers (a control panel), closed threads. The daemon routes them
   * to repositories and threads.
   */
  route?: (event: InboundEvent) => Promise<boolean>;
  /**
   * Records a person's answer (default: answerPrompt). `approvals --watch` types it itself where no
   * agent-bridge controls the session (answer-unattended.ts).
   */
  answer?: (store: Store, request: AnswerRequest) => AnswerOutcome | Promise<AnswerOutcome>;
}

/**
 * Hosts one channel for every session that asked for it (any agent-bridge process: the store is the bus).
 * Sends each open prompt to every chat once, edits it with the outcome, forwards agent messages, and turns
 * what allowed people do in the chat into answers and input. Only one process hosts a channel (a lease).
 */
export class ChannelRelay {
  private heartbeat: TimerHandle | null = null;
  private retry: { timer: TimerHandle; dueAt: number } | null = null;
  private unwatch: (() => void) | null = null;
  private syncing: Promise<void> | null = null;
  /** A change arrived during a sync: look again when it ends, or a prompt could wait for the next change. */
  private syncAgain = false;
  private stopped = false;
  private readonly limiter: WindowLimiter;
  private readonly answer: NonNullable<RelayOptions['answer']>;
  private readonly failedSends = new Map<string, number>();
  /** Agent messages a chat has not taken yet (a send failed): sent again, in order, before newer ones. */
  private readonly backlog = new ChatBacklog<OutgoingMessage>({
    retryMs: RETRY_SEND_MS,
    now: () => this.options.clock.now(),
    send: (chat, outgoing) => this.sendMessage(chat, outgoing),
    gaveUp: (outgoing, chat, why) => {
      const reason =
        why === 'failed' ? `${MAX_SEND_TRIES} tries failed` : `over ${MAX_HELD_PER_CHAT} waiting`;
      this.log(`gave up forwarding message ${outgoing.messageId} to ${chat.chatId}: ${reason}`);
    },
  });

  private allowedUsers: Set<string>;

  constructor(private readonly options: RelayOptions) {
    this.answer = options.answer ?? answerPrompt;
    this.limiter = new WindowLimiter(CALLBACKS_PER_MINUTE, 60_000, options.clock);
    this.allowedUsers = options.allowedUsers;
  }

  /** A reloaded configuration changes who may answer, without restarting anything. */
  setAllowedUsers(users: Set<string>): void {
    this.allowedUsers = users;
  }

  private chatsOf(session: SessionRecord): ChatTarget[] {
    return this.options.chatsFor ? this.options.chatsFor(session) : this.options.chats;
  }

  get name(): string {
    return this.options.channel.name;
  }

  /** The name rows in the store are kept under: the channel's, or this relay's own when not exclusive. */
  private get books(): string {
    return this.options.bookkeeping ?? this.options.channel.name;
  }

  /** Takes the channel's lease (false when another live process hosts it) and starts relaying. */
  async start(): Promise<boolean> {
    const { store, channel, isAlive } = this.options;
    if (this.exclusive && !store.channels.acquireHost(channel.name, isAlive, ownProcessRef())) return false;
    if (store.channels.getState(this.books, 'message_cursor') === null) {
      store.channels.setState(this.books, 'message_cursor', String(store.channels.lastMessageId()));
    }
    try {
      await channel.start(
        (event) =>
          void this.onInbound(event).catch((error: unknown) =>
            this.log(`inbound: ${(error as Error).message}`),
          ),
      );
    } catch (error) {
      // A refused token: the lease goes, so the next process that needs the channel may try.
      if (this.exclusive) store.channels.releaseHost(channel.name);
      throw error;
    }
    // Stopped while the channel started (serve stopped during a slow start): nothing more starts here.
    if (this.stopped) return false;
    // Other processes' commits (a prompt, an answer, a message) wake the relay; nothing runs while all is quiet.
    this.unwatch = SharedStoreChanges.for(store, this.options.clock).subscribe(() => void this.sync());
    if (this.exclusive) this.beat();
    void this.sync();
    return true;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unwatch?.();
    this.heartbeat?.cancel();
    this.retry?.timer.cancel();
    await this.syncing; // never close the store under a sync in flight
    await this.options.channel.stop();
    if (this.exclusive) this.options.store.channels.releaseHost(this.options.channel.name);
    // A terminal inbox keeps books of its own (`terminal:<pid>`): nobody reads them after it closes.
    else if (this.options.bookkeeping) this.options.store.channels.forget(this.options.bookkeeping);
  }

  /** Something changed in this process (a prompt, an answer): sync now. */
  poke(): void {
    void this.sync();
  }

  /** After the channel reconnects: retry everything that failed to send. */
  reconnected(): void {
    this.failedSends.clear();
    this.backlog.dueNow();
    this.poke();
  }

  /** The lease says this process still hosts the channel; sessions whose agent-bridge died are closed. */
  private beat(): void {
    this.heartbeat = this.options.clock.after(HEARTBEAT_MS, () => {
      if (this.stopped) return;
      try {
        this.options.store.channels.acquireHost(this.name, this.options.isAlive, ownProcessRef());
        // A session whose agent-bridge died: its prompts' messages say so, rather than wait for ever.
        reapDeadSessions(this.options.store, this.options.isAlive);
      } catch (error) {
        this.log(`heartbeat: ${(error as Error).message}`);
      }
      this.beat();
    });
  }

  /** A send failed: look again when it is due (`dueAt`), or sooner if another is due sooner. */
  private retryLater(dueAt: number): void {
    if (this.stopped || (this.retry && this.retry.dueAt <= dueAt)) return;
    this.retry?.timer.cancel();
    const { clock } = this.options;
    const timer = clock.after(Math.max(0, dueAt - clock.now()), () => {
      this.retry = null;
      void this.sync();
    });
    this.retry = { timer, dueAt };
  }

  private get exclusive(): boolean {
    return this.options.exclusive ?? true;
  }

  private serves(session: SessionRecord): boolean {
    return this.options.serves ? this.options.serves(session) : session.approveFrom.includes(this.name);
  }

  private servedSessions(): SessionRecord[] {
    return this.options.store.sessions.list().filter((s) => this.serves(s));
  }

  private sync(): Promise<void> {
    if (this.syncing) {
      this.syncAgain = true;
      return this.syncing;
    }
    if (this.stopped) return Promise.resolve();
    this.syncing = (async () => {
      try {
        // What the agent said goes out before what it then asks (a progress note before its permission):
        // messages written while earlier ones were being sent (chats space their sends) go first too.
        await this.backlog.flush();
        while (!this.stopped && (await this.forwardMessages()) > 0);
        if (!this.stopped) await this.sendOpenPrompts();
        if (!this.stopped) await this.showOutcomes();
      } catch (error) {
        this.log(`sync failed: ${(error as Error).message}`);
      } finally {
        this.syncing = null;
        // Messages still held (a send failed here, or before and not due yet) are tried again later.
        const due = this.backlog.nextDue;
        if (due !== null) this.retryLater(due);
      }
      if (this.syncAgain && !this.stopped) {
        this.syncAgain = false;
        await this.sync();
      }
    })();
    return this.syncing;
  }

  private async sendOpenPrompts(): Promise<void> {
    const { store, channel, clock } = this.options;
    const sessions = new Map(this.servedSessions().map((s) => [s.id, s]));
    for (const record of store.prompts.open()) {
      const session = sessions.get(record.sessionId);
      if (!session || record.expiresAt <= clock.now()) continue;
      const sent = new Set(store.channels.promptMessages(record.id, this.books).map((m) => m.chatId));
      for (const chat of this.chatsOf(session).filter((c) => !sent.has(c.chatId))) {
        // One message per chat (a thread's session sends into its thread, under its parent's chat id).
        const key = `${record.id}:${chat.chatId}`;
        if ((this.failedSends.get(key) ?? 0) > clock.now()) continue;
        // What the agent said before it asked goes first, if the chat takes it now; a prompt never waits for it.
        await this.backlog.flushChat(chat);
        try {
          const ref = await channel.sendPrompt(chat, promptView(record, session));
          store.channels.recordPromptMessage({
            promptId: record.id,
            channel: this.books,
            chatId: chat.chatId,
            ...(chat.threadId ? { threadId: chat.threadId } : {}),
            messageId: ref.messageId,
          });
          store.audit.record('PROMPT_ROUTED', {
            session_id: record.sessionId,
            prompt_id: record.id,
            channel: this.name,
            chat: chat.chatId,
          });
          this.failedSends.delete(key);
        } catch (error) {
          this.failedSends.set(key, clock.now() + RETRY_SEND_MS);
          this.retryLater(clock.now() + RETRY_SEND_MS);
          this.log(`could not send prompt ${record.id.slice(0, 8)}: ${(error as Error).message}`);
        }
      }
    }
  }

  private async showOutcomes(): Promise<void> {
    const { store, channel } = this.options;
    for (const sent of store.channels.unshownOutcomes(this.books)) {
      const record = store.prompts.get(sent.promptId);
      if (!record) continue;
      try {
        const view = promptView(record, store.sessions.get(record.sessionId));
        await channel.showOutcome(
          {
            chatId: sent.chatId,
            ...(sent.threadId ? { threadId: sent.threadId } : {}),
            messageId: sent.messageId,
          },
          view,
          promptOutcome(record),
        );
        store.channels.markOutcomeShown(sent.promptId, this.books, sent.chatId);
      } catch (error) {
        this.log(`could not update prompt ${record.id.slice(0, 8)}: ${(error as Error).message}`);
      }
    }
  }

  /** Sends the messages written since the last look; returns how many it took. */
  private async forwardMessages(): Promise<number> {
    const { store, outputThreshold, clock } = this.options;
    const cursor = Number(store.channels.getState(this.books, 'message_cursor') ?? '0');
    const messages = store.channels.messagesAfter(cursor);
    for (const message of messages) {
      // Notices of sessions that just ended still count: served means "asked for this channel".
      const session = store.sessions.get(message.sessionId);
      if (session && this.serves(session)) {
        const prepared =
          message.kind === 'message'
            ? prepareMessage(message.text, outputsDir(store.dir, session.label))
            : { text: message.text, files: [], refused: [] };
        for (const refused of prepared.refused)
          store.audit.record('ATTACHMENT_REFUSED', {
            session_id: session.id,
            channel: this.name,
            path: refused.path,
            reason: refused.reason,
          });
        // The agent's model, context use and rate limits under its own messages, not under notices.
        const footer = message.kind === 'message' ? formatStatusFooter(session.usage, clock.now()) : null;
        const outgoing: OutgoingMessage = {
          messageId: message.id,
          prepared,
          options: {
            threshold: outputThreshold,
            now: clock.now(),
            caption: `${session.agent} · ${session.label}`,
            ...(footer ? { footer } : {}),
          },
        };
        for (const chat of this.chatsOf(session)) {
          // Behind what this chat has not taken yet; else now, and held if it fails.
          if (this.backlog.holds(chat)) this.backlog.hold(chat, outgoing);
          else if ((await this.sendMessage(chat, outgoing)) === 'failed')
            this.backlog.hold(chat, outgoing, true);
        }
      }
      store.channels.setState(this.books, 'message_cursor', String(message.id));
    }
    return messages.length;
  }

  private async sendMessage(chat: ChatTarget, outgoing: OutgoingMessage): Promise<SendResult> {
    try {
      await sendPrepared(this.options.channel, chat, outgoing.prepared, outgoing.options);
      return 'sent';
    } catch (error) {
      this.log(`could not forward a message: ${(error as Error).message}`);
      return 'failed';
    }
  }

  private async onInbound(event: InboundEvent): Promise<void> {
    const { store } = this.options;
    if (event.type === 'thread_closed') {
      await this.options.route?.(event);
      return;
    }
    if (!this.allowedUsers.has(event.from.id)) {
      store.audit.record('UNAUTHORIZED', {
        channel: this.name,
        user: event.from.id,
        name: event.from.name,
        kind: event.type,
      });
      if (event.type === 'button') await event.acknowledge('You are not allowed to answer here.');
      return;
    }
    if (event.type === 'button') return this.onButton(event);
    if (event.type === 'text') return this.onText(event);
    return this.onFiles(event);
  }

  private async onButton(event: Extract<InboundEvent, { type: 'button' }>): Promise<void> {
    const { store } = this.options;
    const button = decodeButton(event.data);
    if (!button && this.options.route && (await this.options.route(event))) return;
    if (!button) {
      store.audit.record('REPLY_REJECTED', {
        channel: this.name,
        decided_by: `${this.name}:${event.from.id}`,
        reason: 'malformed button data',
      });
      return event.acknowledge('This button is not from agent-bridge.');
    }
    if (button.value === 'm') return this.showMore(event, button);
    if (button.value === 'o') return this.askForText(event, button.promptPrefix);
    if (!this.limiter.allow(button.sessionPrefix)) {
      store.audit.record('REPLY_REJECTED', {
        channel: this.name,
        decided_by: `${this.name}:${event.from.id}`,
        reason: 'rate limited',
      });
      await this.options.channel
        .sendText(
          event.target,
          '⚠️ Too many answers for this session in a minute; answers are paused briefly.',
        )
        .catch(() => undefined);
      return event.acknowledge('Too many answers: wait a minute.');
    }
    const raw = answerForButton(button.value);
    const outcome = raw
      ? await this.answer(store, {
          promptRef: button.promptPrefix,
          sessionPrefix: button.sessionPrefix,
          noncePrefix: button.noncePrefix,
          raw,
          decidedBy: `${this.name}:${event.from.id}`,
        })
      : ({ ok: false, reason: 'unknown button' } as const);
    if (outcome.ok) this.options.onAnswer?.();
    await event.acknowledge(outcome.ok ? `Answered: ${outcome.summary}` : `Not applied: ${outcome.reason}`);
    this.poke();
  }

  private async showMore(
    event: Extract<InboundEvent, { type: 'button' }>,
    { promptPrefix, sessionPrefix, noncePrefix }: PromptButton,
  ): Promise<void> {
    const record = this.options.store.prompts.findByPrefix(promptPrefix)[0];
    // Only a prompt still waiting, of the kind that shows the button, from its own message (nonce and session).
    const waiting =
      record &&
      OPEN_STATUSES.includes(record.status) &&
      record.expiresAt > this.options.clock.now() &&
      record.kind === 'unknown' &&
      record.sessionId.replace(/-/g, '').startsWith(sessionPrefix) &&
      record.nonce.startsWith(noncePrefix);
    if (!waiting) return event.acknowledge('This prompt is no longer waiting for an answer.');
    await event.acknowledge();
    await this.options.channel.sendText(event.target, `Last output:\n${record.detail.slice(-500)}`);
  }

  /** "Other…": a form where the platform has one, else a hint to reply with words. */
  private async askForText(
    event: Extract<InboundEvent, { type: 'button' }>,
    promptPrefix: string,
  ): Promise<void> {
    const record = this.options.store.prompts.findByPrefix(promptPrefix)[0];
    if (!record || !OPEN_STATUSES.includes(record.status))
      return event.acknowledge('This prompt is no longer waiting for an answer.');
    if (event.askForText) return event.askForText(TEXT_FORM_TITLES[record.kind] ?? 'Your answer');
    await event.acknowledge();
    await this.options.channel
      .sendText(event.target, 'Reply to the prompt message with your words.')
      .catch(() => undefined);
  }

  private async onText(event: Extract<InboundEvent, { type: 'text' }>): Promise<void> {
    const { store, channel } = this.options;
    const reply = (text: string) =>
      event.acknowledge
        ? event.acknowledge(text)
        : channel.sendText(event.target, text).then(() => undefined);
    const promptId = event.replyTo
      ? store.channels.promptForMessage(this.books, event.replyTo.chatId, event.replyTo.messageId)
      : null;
    // A form answers its prompt, never anything else: words for a prompt we do not know are not typed anywhere.
    if (!promptId && event.acknowledge && event.replyTo)
      return reply('This prompt is no longer waiting for an answer.');
    if (promptId) {
      const outcome = await this.answer(store, {
        promptRef: promptId,
        raw: event.text,
        decidedBy: `${this.name}:${event.from.id}`,
      });
      if (outcome.ok) this.options.onAnswer?.();
      this.poke();
      return reply(outcome.ok ? `Answered: ${outcome.summary}` : `Not applied: ${outcome.reason}`);
    }
    const ctx = this.commandContext(event.target, event.from);
    const command = parseCommand(event.text);
    // The host (the daemon) sees commands and text first: it owns /status, /restart, /select and the routing.
    if (this.options.route && (await this.options.route(event))) return;
    // Under serve, a chat no repository maps gets nothing: no text typed, no command answered (as Discord does).
    if (this.unmapped(event)) return;
    if (command) return reply(runChatCommand(command.command, command.args, ctx));
    const session = targetSession(ctx);
    if (session === 'none') return reply('No agent session is running here.');
    if (session === 'ambiguous')
      return reply(
        'Several sessions are running: reply to a prompt message, or choose one with /switch <id> (see /sessions).',
      );
    const outcome = sendTextToSession(store, session.id, event.text, `${this.name}:${event.from.id}`);
    if (outcome.type !== 'refused' && outcome.type !== 'held') this.options.onAnswer?.();
    const notice = textOutcomeNotice(outcome);
    if (notice) await reply(notice);
  }

  private async onFiles(event: Extract<InboundEvent, { type: 'files' }>): Promise<void> {
    const { store, channel } = this.options;
    if (this.options.route && (await this.options.route(event))) return;
    if (this.unmapped(event)) return;
    const reply = (text: string) => channel.sendText(event.target, text).then(() => undefined);
    const session = targetSession(this.commandContext(event.target, event.from));
    if (typeof session === 'string')
      return reply('Choose a session first with /switch <id>, then send the file again.');
    const saved = await saveUploads(event.files, uploadsDir(store.dir, session.label), event.caption);
    if (!saved.ok) {
      store.audit.record('UPLOAD_REFUSED', {
        session_id: session.id,
        channel: this.name,
        user: event.from.id,
        reason: saved.reason,
      });
      return reply(`Not passed to the session: ${saved.reason}`);
    }
    const outcome = sendTextToSession(store, session.id, saved.input, `${this.name}:${event.from.id}`);
    if (outcome.type !== 'refused' && outcome.type !== 'held') this.options.onAnswer?.();
    return reply(textOutcomeNotice(outcome) ?? `Saved ${saved.paths.join(', ')} and passed to the session.`);
  }

  /**
   * Under a host that maps chats to sessions (`serve`, through `route`), text and files it did not take come from
   * a chat no repository maps: they are typed into a session only where this relay sends prompts anyway (the
   * default chats, where `run --approve-from` sessions' prompts go); anywhere else they are ignored and audited,
   * as Discord and Slack ignore channels they were not given. Without a host (`run`) every chat of an allowed
   * person reaches the session.
   */
  private unmapped(event: Extract<InboundEvent, { type: 'text' | 'files' }>): boolean {
    if (!this.options.route) return false;
    const here = (chat: ChatTarget) => chat.chatId === event.target.chatId;
    if (this.options.chats.some(here) || this.servedSessions().some((s) => this.chatsOf(s).some(here)))
      return false;
    this.options.store.audit.record('REPLY_REJECTED', {
      channel: this.name,
      decided_by: `${this.name}:${event.from.id}`,
      chat: event.target.chatId,
      kind: event.type,
      reason: 'no repository is mapped to this chat',
    });
    return true;
  }

  private commandContext(target: ChatTarget, from: ChatUser): CommandContext {
    return {
      store: this.options.store,
      channel: this.books,
      target,
      from,
      sessions: () => this.servedSessions(),
    };
  }

  private log(line: string): void {
    this.options.log?.(`${this.name}: ${line}`);
  }
}

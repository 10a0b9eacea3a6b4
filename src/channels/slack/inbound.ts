import type { App } from '@slack/bolt';
import type { ChatTarget, ChatUser, InboundEvent, InboundFile } from '../contract.js';
import { answerForm, FORM_BLOCK, FORM_CALLBACK, FORM_INPUT, type Block } from './blocks.js';
import { fromSlackText } from './mrkdwn.js';
import {
  appHomeOpened,
  blockActions,
  formOrigin,
  messageEvent,
  parse,
  slashCommand,
  viewSubmission,
  type BlockActions,
  type MessageEvent,
  type SlashCommand,
} from './wire.js';

/** A chat id for a person's DM with the bot: `dm:<user id>` (the bot opens that DM to write there). */
export const DM_PREFIX = 'dm:';
export const SLASH_COMMAND = '/agent-bridge';

/** What `/agent-bridge <word>` passes on, as the text command `/<word>` other chats type. */
export const SLASH_SUBCOMMANDS = [
  'status',
  'sessions',
  'switch',
  'select',
  'cancel',
  'restart',
  'worktrees',
  'approvals',
  'help',
] as const;

/** Message subtypes that are people writing (everything else: joins, topics, bots, edits). */
const WRITTEN = new Set(['file_share', 'thread_broadcast']);
/** Slack re-sends events it thinks were lost: the last few are remembered so none is acted on twice. */
const REMEMBERED_EVENTS = 1_000;

export interface InboundDeps {
  /** Passes an event on, if the bot listens where it happened. */
  emit(event: InboundEvent, direct: boolean): void;
  listens(target: ChatTarget, direct: boolean): boolean;
  /** Shows `text` to `user` alone: through the interaction's response_url when it is Slack's, else postEphemeral. */
  ephemeral(target: ChatTarget, user: string, text: string, responseUrl?: string): Promise<void>;
  openForm(triggerId: string, view: Block): Promise<void>;
  /** Downloads a file people posted, with the bot token, from Slack's file host only. */
  download(url: string | undefined, maxBytes: number): Promise<Buffer>;
  homeOpened(user: string): Promise<void>;
  report(line: string): void;
}

/**
 * Slack's events, buttons, forms and the slash command, as the channel contract's inbound events. Every
 * payload is checked against its shape (wire.ts) before anything is read from it.
 */
export class SlackInbound {
  private readonly seen = new Set<string>();

  constructor(private readonly deps: InboundDeps) {}

  register(app: App): void {
    app.event('message', async ({ event }) => this.onMessage(event));
    app.event('app_home_opened', async ({ event }) => {
      const opened = parse(appHomeOpened, event);
      if (opened.ok && (opened.value.tab ?? 'home') === 'home') await this.deps.homeOpened(opened.value.user);
    });
    app.action(/[\s\S]*/, async ({ ack, body }) => {
      await ack().catch(() => undefined); // within Slack's 3 s, whatever follows
      this.onAction(body);
    });
    app.view(FORM_CALLBACK, async ({ ack, body }) => {
      await ack().catch(() => undefined); // closes the form
      this.onForm(body);
    });
    app.command(SLASH_COMMAND, async ({ ack, command }) => {
      const reply = this.onCommand(command);
      await ack(reply ? { response_type: 'ephemeral', text: reply } : undefined).catch(() => undefined);
    });
  }

  private dropped(what: string, why: string): void {
    this.deps.report(`slack: ignored a malformed ${what}: ${why}`);
  }

  private firstTime(key: string): boolean {
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    if (this.seen.size > REMEMBERED_EVENTS) this.seen.delete(this.seen.values().next().value!);
    return true;
  }

  private onMessage(raw: unknown): void {
    const parsed = parse(messageEvent, raw);
    if (!parsed.ok) return this.dropped('message', parsed.why);
    const message = parsed.value;
    if (message.subtype === 'message_deleted' || message.subtype === 'message_changed')
      return this.onRemoved(message);
    if (message.subtype && !WRITTEN.has(message.subtype)) return;
    if (message.bot_id || !message.user) return; // bots, ourselves included
    if (!this.firstTime(`${message.channel}:${message.ts}`)) return;
    const direct = message.channel.startsWith('D');
    const inThread = message.thread_ts !== undefined && message.thread_ts !== message.ts;
    const target: ChatTarget = direct
      ? { chatId: `${DM_PREFIX}${message.user}` }
      : { chatId: message.channel, ...(inThread ? { threadId: message.thread_ts } : {}) };
    const from = { id: message.user, name: message.user };
    const text = fromSlackText(message.text ?? '');
    const files = (message.files ?? []).map((file) => this.inboundFile(file));
    if (files.length > 0) {
      this.deps.emit({ type: 'files', target, from, files, ...(text ? { caption: text } : {}) }, direct);
      return;
    }
    if (!text.trim()) return;
    // A reply in a thread replies to its first message: a prompt's thread answers the prompt.
    const replyTo = inThread ? { ...target, messageId: message.thread_ts! } : undefined;
    this.deps.emit(
      { type: 'text', target, from, text, messageId: message.ts, ...(replyTo ? { replyTo } : {}) },
      direct,
    );
  }

  private inboundFile(file: NonNullable<MessageEvent['files']>[number]): InboundFile {
    return {
      fileName: file.name || file.title || file.id,
      size: file.size,
      download: (maxBytes) => this.deps.download(file.url_private_download ?? file.url_private, maxBytes),
    };
  }

  /** A thread's first message deleted (a tombstone where it had replies): the thread is closed. */
  private onRemoved(message: MessageEvent): void {
    const root =
      message.subtype === 'message_deleted'
        ? message.previous_message?.thread_ts === message.deleted_ts
          ? message.deleted_ts
          : undefined
        : message.message?.subtype === 'tombstone'
          ? message.message.ts
          : undefined;
    if (!root || message.channel.startsWith('D')) return;
    this.deps.emit(
      { type: 'thread_closed', target: { chatId: message.channel, threadId: root }, reason: 'deleted' },
      false,
    );
  }

  private onAction(body: unknown): void {
    const parsed = parse(blockActions, body);
    if (!parsed.ok) return this.dropped('button', parsed.why);
    const payload = parsed.value;
    const action = payload.actions[0]!;
    const from: ChatUser = {
      id: payload.user.id,
      name: payload.user.username ?? payload.user.name ?? payload.user.id,
    };
    if (payload.container.type === 'view') return this.onHomeButton(payload, from, action.action_id);
    const channel = payload.container.channel_id ?? payload.channel?.id;
    const messageTs = payload.container.message_ts ?? payload.message?.ts;
    if (!channel || !messageTs) return this.dropped('button', 'no message');
    const direct = channel.startsWith('D');
    const thread = payload.container.thread_ts ?? payload.message?.thread_ts;
    const target: ChatTarget = direct
      ? { chatId: `${DM_PREFIX}${from.id}` }
      : { chatId: channel, ...(thread && thread !== messageTs ? { threadId: thread } : {}) };
    const trigger = payload.trigger_id;
    const origin = JSON.stringify({
      c: target.chatId,
      ...(target.threadId ? { t: target.threadId } : {}),
      m: messageTs,
    });
    this.deps.emit(
      {
        type: 'button',
        target,
        from,
        data: action.action_id,
        message: { ...target, messageId: messageTs },
        acknowledge: async (text) => {
          if (text) await this.deps.ephemeral(target, from.id, text, payload.response_url);
        },
        ...(trigger
          ? { askForText: (title: string) => this.deps.openForm(trigger, answerForm(title, origin)) }
          : {}),
      },
      direct,
    );
  }

  /** Start / Stop on the App Home: the view updates itself, so nothing more is said. */
  private onHomeButton(payload: BlockActions, from: ChatUser, data: string): void {
    const target = { chatId: `${DM_PREFIX}${from.id}` };
    this.deps.emit(
      {
        type: 'button',
        target,
        from,
        data,
        message: { ...target, messageId: payload.view?.id ?? payload.container.view_id ?? 'home' },
        acknowledge: async () => undefined,
      },
      true,
    );
  }

  /** The answer form's words arrive as a reply to the prompt's message, the way a typed reply would. */
  private onForm(body: unknown): void {
    const parsed = parse(viewSubmission, body);
    if (!parsed.ok) return this.dropped('form', parsed.why);
    const { view, user } = parsed.value;
    let origin: unknown;
    try {
      origin = JSON.parse(view.private_metadata);
    } catch {
      return this.dropped('form', 'private_metadata is not JSON');
    }
    const where = parse(formOrigin, origin);
    if (!where.ok) return this.dropped('form', where.why);
    const text = view.state.values[FORM_BLOCK]?.[FORM_INPUT]?.value ?? '';
    if (!text.trim()) return;
    const direct = where.value.c.startsWith(DM_PREFIX);
    const target: ChatTarget = {
      chatId: where.value.c,
      ...(where.value.t ? { threadId: where.value.t } : {}),
    };
    this.deps.emit(
      {
        type: 'text',
        target,
        from: { id: user.id, name: user.username ?? user.name ?? user.id },
        text,
        messageId: view.id,
        replyTo: { ...target, messageId: where.value.m },
        acknowledge: (reply) => this.deps.ephemeral(target, user.id, reply),
      },
      direct,
    );
  }

  /**
   * `/agent-bridge status` is the text command `/status` (Slack keeps messages that start with `/` for its
   * own commands). Returns what to answer at once, if anything: usage, or where the bot does not listen.
   */
  private onCommand(raw: unknown): string | null {
    const parsed = parse(slashCommand, raw);
    if (!parsed.ok) {
      this.dropped('slash command', parsed.why);
      return null;
    }
    const command: SlashCommand = parsed.value;
    const [word = 'help', ...rest] = command.text.trim().split(/\s+/).filter(Boolean);
    const sub = word.toLowerCase();
    if (!(SLASH_SUBCOMMANDS as readonly string[]).includes(sub))
      return `Unknown: \`${SLASH_COMMAND} ${word.slice(0, 40)}\`. Try: ${SLASH_SUBCOMMANDS.map((s) => `\`${SLASH_COMMAND} ${s}\``).join(', ')}`;
    const direct = command.channel_id.startsWith('D');
    const target: ChatTarget = direct
      ? { chatId: `${DM_PREFIX}${command.user_id}` }
      : { chatId: command.channel_id };
    if (!this.deps.listens(target, direct))
      return `agent-bridge does not listen in this channel: map it to a repository with \`agent-bridge add-repo --channel slack:${command.channel_id}\`.`;
    const from = { id: command.user_id, name: command.user_name ?? command.user_id };
    this.deps.emit(
      {
        type: 'text',
        target,
        from,
        text: `/${sub}${rest.length ? ` ${rest.join(' ')}` : ''}`,
        messageId: `command:${command.user_id}`,
        acknowledge: (reply) => this.deps.ephemeral(target, from.id, reply, command.response_url),
      },
      direct,
    );
    return null;
  }
}

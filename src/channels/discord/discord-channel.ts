import type {
  AnyThreadChannel,
  ButtonInteraction,
  Client,
  Interaction,
  Message,
  ModalSubmitInteraction,
  SendableChannels,
} from 'discord.js';
import { systemClock, type Clock } from '../../core/clock.js';
import { splitMessage } from '../../core/split-text.js';
import type {
  Channel,
  ChatTarget,
  InboundEvent,
  MessageRef,
  PanelButton,
  PromptOutcome,
  PromptView,
} from '../contract.js';
import { fetchCapped } from '../download.js';
import {
  DISCORD_MESSAGE_LIMIT,
  outcomeContent,
  promptComponents,
  promptContent,
  STYLE,
} from './prompt-message.js';

export interface DiscordOptions {
  token: string;
  /** Another REST root (a test's fake), e.g. `http://127.0.0.1:PORT/api`; the gateway address comes from it. */
  restApi?: string;
  clock?: Clock;
  /** Which chats the bot listens to (`direct`: a DM); others are ignored. A thread counts as its parent. */
  listensTo?: (target: ChatTarget, direct: boolean) => boolean;
  /** Told when the gateway connection came back, so prompts can be re-delivered. */
  onReconnect?: () => void;
  /** Told about connection trouble (one line, no secrets). */
  onError?: (message: string) => void;
}

export class DiscordAuthError extends Error {
  override name = 'DiscordAuthError';
}

/** Discord wants an answer to a button within 3 s: acknowledge silently if nothing else did by then. */
const ACK_DEADLINE_MS = 2_500;
const MODAL_PREFIX = 'answer:';
/** A chat id for a person's DM with the bot: `dm:<user id>`. */
export const DM_PREFIX = 'dm:';

/**
 * Discord through discord.js: the gateway for messages, buttons and thread changes; REST (with the library's
 * rate-limit queue, which honours 429s and their headers) for sending. A thread is a target's `threadId`
 * under its parent channel's `chatId`; messages go to the thread when there is one.
 */
export class DiscordChannel implements Channel {
  readonly name = 'discord';
  readonly textLimit = DISCORD_MESSAGE_LIMIT;
  private client: Client | null = null;
  private readonly clock: Clock;
  private disconnected = false;

  constructor(private readonly options: DiscordOptions) {
    this.clock = options.clock ?? systemClock;
  }

  async start(onInbound: (event: InboundEvent) => void): Promise<void> {
    const { Client, Events, GatewayIntentBits, Partials } = await import('discord.js');
    const client = new Client({
      intents: [
        GatewayIntentBits.Guilds,
        GatewayIntentBits.GuildMessages,
        GatewayIntentBits.DirectMessages,
        GatewayIntentBits.MessageContent,
      ],
      partials: [Partials.Channel, Partials.Message],
      rest: { ...(this.options.restApi ? { api: this.options.restApi } : {}), timeout: 15_000 },
      waitGuildTimeout: 1_000,
      allowedMentions: { parse: [] },
    });
    this.guardPackets(client);
    client.on(
      Events.MessageCreate,
      this.guarded('message', (message: Message) => this.onMessage(message, onInbound)),
    );
    client.on(
      Events.InteractionCreate,
      this.guarded('interaction', (interaction: Interaction) => this.onInteraction(interaction, onInbound)),
    );
    client.on(
      Events.ThreadUpdate,
      this.guarded('thread update', (before: AnyThreadChannel, thread: AnyThreadChannel) => {
        if (thread.archived && !before.archived && thread.parentId)
          this.emitIfListened(onInbound, {
            type: 'thread_closed',
            target: { chatId: thread.parentId, threadId: thread.id },
            reason: 'archived',
          });
      }),
    );
    client.on(
      Events.ThreadDelete,
      this.guarded('thread delete', (thread: AnyThreadChannel) => {
        if (thread.parentId)
          this.emitIfListened(onInbound, {
            type: 'thread_closed',
            target: { chatId: thread.parentId, threadId: thread.id },
            reason: 'deleted',
          });
      }),
    );
    // Only for close codes discord.js will not recover from (a reset token, intents not enabled): say so.
    client.on(Events.ShardDisconnect, (event) => {
      this.disconnected = true;
      this.options.onError?.(
        `discord: the gateway closed (code ${event.code}) and will not reconnect: check the bot token and its intents (Message Content)`,
      );
    });
    client.on(Events.ShardReconnecting, () => void (this.disconnected = true));
    const reconnected = () => {
      if (!this.disconnected) return;
      this.disconnected = false;
      this.options.onReconnect?.();
    };
    client.on(Events.ShardResume, reconnected);
    client.on(Events.ShardReady, reconnected);
    client.on(Events.Error, (error) => this.options.onError?.(`discord: ${firstLine(error)}`));
    await this.login(client);
    this.client = client;
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = null;
    await client?.destroy();
  }

  async sendText(target: ChatTarget, text: string): Promise<MessageRef> {
    const channel = await this.channelOf(target);
    let last: Message | null = null;
    for (const piece of splitMessage(text || '(empty)', DISCORD_MESSAGE_LIMIT)) {
      last = await channel.send({ content: piece, allowedMentions: { parse: [] } });
    }
    return { ...target, messageId: last!.id };
  }

  /** A file over the server's upload limit (10 MB without boosts) becomes a notice saying so. */
  async sendFile(target: ChatTarget, fileName: string, data: Buffer, caption?: string): Promise<MessageRef> {
    const channel = await this.channelOf(target);
    let message: Message;
    try {
      message = await channel.send({
        ...(caption ? { content: caption.slice(0, DISCORD_MESSAGE_LIMIT) } : {}),
        files: [{ attachment: data, name: fileName }],
        allowedMentions: { parse: [] },
      });
    } catch (error) {
      if (!isTooLarge(error)) throw error;
      const megabytes = Math.round((data.length / 1024 / 1024) * 10) / 10;
      const notice = `⚠️ Not sent: ${fileName} (${megabytes} MB is larger than this Discord server accepts)`;
      message = await channel.send({
        content: (caption ? `${caption}\n${notice}` : notice).slice(0, DISCORD_MESSAGE_LIMIT),
        allowedMentions: { parse: [] },
      });
    }
    return { ...target, messageId: message.id };
  }

  async sendPrompt(target: ChatTarget, prompt: PromptView): Promise<MessageRef> {
    const channel = await this.channelOf(target);
    const message = await channel.send({
      content: promptContent(prompt),
      components: promptComponents(prompt),
      allowedMentions: { parse: [] },
    });
    return { ...target, messageId: message.id };
  }

  async showOutcome(ref: MessageRef, prompt: PromptView, outcome: PromptOutcome): Promise<void> {
    const channel = await this.channelOf(ref);
    await channel.messages.edit(ref.messageId, {
      content: outcomeContent(prompt, outcome).slice(0, DISCORD_MESSAGE_LIMIT),
      components: [],
      allowedMentions: { parse: [] },
    });
  }

  async editText(ref: MessageRef, text: string): Promise<void> {
    const channel = await this.channelOf(ref);
    await channel.messages.edit(ref.messageId, { content: text.slice(0, DISCORD_MESSAGE_LIMIT) });
  }

  async sendPanel(
    target: ChatTarget,
    text: string,
    buttons: PanelButton[][],
    ref?: MessageRef,
  ): Promise<MessageRef> {
    const channel = await this.channelOf(target);
    const content = text.slice(0, DISCORD_MESSAGE_LIMIT);
    const components = buttons.slice(0, 5).map((row) => ({
      type: 1 as const,
      components: row.slice(0, 5).map((b) => ({
        type: 2 as const,
        style: STYLE[b.style ?? 'secondary'],
        label: b.label.slice(0, 80),
        custom_id: b.data.slice(0, 100),
      })),
    }));
    if (ref) {
      const edited = await channel.messages.edit(ref.messageId, { content, components }).catch(() => null);
      if (edited) return ref;
    }
    const message = await channel.send({ content, components, allowedMentions: { parse: [] } });
    return { ...target, messageId: message.id };
  }

  private async login(client: Client): Promise<void> {
    const ready = new Promise<void>((resolve) => client.once('clientReady' as 'ready', () => resolve()));
    try {
      await client.login(this.options.token);
      await ready;
    } catch (error) {
      await client.destroy().catch(() => undefined);
      const message = (error as Error).message;
      if (/token|401|unauthori[sz]ed/i.test(message))
        throw new DiscordAuthError('discord refused the bot token: check channels.discord.token');
      throw new Error(`discord: cannot connect: ${message.split('\n')[0]}`);
    }
  }

  private async channelOf(
    target: ChatTarget,
  ): Promise<SendableChannels & { messages: Message['channel']['messages'] }> {
    const client = this.client;
    if (!client) throw new Error('discord channel is not started');
    const id = target.threadId ?? target.chatId;
    const channel = id.startsWith(DM_PREFIX)
      ? await client.users.createDM(id.slice(DM_PREFIX.length))
      : (client.channels.cache.get(id) ?? (await client.channels.fetch(id)));
    if (!channel?.isSendable() || !('messages' in channel))
      throw new Error(`discord: cannot send to channel ${id}`);
    return channel as SendableChannels & { messages: Message['channel']['messages'] };
  }

  /** A handler that never throws into discord.js: a malformed event is reported and dropped. */
  private guarded<A extends unknown[]>(what: string, handler: (...args: A) => void): (...args: A) => void {
    return (...args) => {
      try {
        handler(...args);
      } catch (error) {
        this.options.onError?.(`discord: ignored a malformed ${what}: ${firstLine(error)}`);
      }
    };
  }

  /**
   * discord.js builds its objects from gateway packets without checking them, and a throw there becomes an
   * unhandled rejection (which ends `agent-bridge run`): drop such a packet instead, and say so.
   */
  private guardPackets(client: Client): void {
    const ws = client.ws as unknown as {
      handlePacket?: (packet?: { t?: string }, shard?: unknown) => boolean;
    };
    const handle = ws.handlePacket?.bind(ws);
    if (!handle) return;
    ws.handlePacket = (packet, shard) => {
      try {
        return handle(packet, shard);
      } catch (error) {
        this.options.onError?.(
          `discord: ignored a malformed ${packet?.t ?? 'gateway'} event: ${firstLine(error)}`,
        );
        return true;
      }
    };
  }

  private emitIfListened(
    onInbound: (event: InboundEvent) => void,
    event: InboundEvent,
    direct = false,
  ): void {
    if (this.options.listensTo && !this.options.listensTo(event.target, direct)) return;
    onInbound(event);
  }

  private onMessage(message: Message, onInbound: (event: InboundEvent) => void): void {
    if (!message.author || message.author.bot || message.system) return; // ourselves, other bots, joins and pins
    const { target, direct } = addressOf(message.channel, message.author.id);
    const from = { id: message.author.id, name: message.author.username };
    const files = [...message.attachments.values()].map((attachment) => ({
      fileName: attachment.name,
      size: attachment.size,
      // fetchCapped refuses more than maxBytes (by Content-Length, then as the bytes arrive); saveUploads has
      // already refused a file whose stated size is over the limit, before any download.
      download: (maxBytes: number) => fetchCapped(attachment.url, maxBytes),
    }));
    if (files.length > 0) {
      this.emitIfListened(
        onInbound,
        {
          type: 'files',
          target,
          from,
          files,
          ...(message.content ? { caption: message.content } : {}),
        },
        direct,
      );
      return;
    }
    if (!message.content) return;
    const replyTo = message.reference?.messageId;
    this.emitIfListened(
      onInbound,
      {
        type: 'text',
        target,
        from,
        text: message.content,
        messageId: message.id,
        ...(replyTo ? { replyTo: { ...target, messageId: replyTo } } : {}),
      },
      direct,
    );
  }

  private onInteraction(interaction: Interaction, onInbound: (event: InboundEvent) => void): void {
    if (interaction.isButton()) this.onButton(interaction, onInbound);
    else if (interaction.isModalSubmit()) this.onModal(interaction, onInbound);
  }

  private onButton(interaction: ButtonInteraction, onInbound: (event: InboundEvent) => void): void {
    const { target, direct } = addressOf(interaction.channel, interaction.user.id);
    const deadline = this.clock.after(
      ACK_DEADLINE_MS,
      () => void interaction.deferUpdate().catch(() => undefined),
    );
    const answered = () => {
      deadline.cancel();
      return !interaction.replied && !interaction.deferred;
    };
    this.emitIfListened(
      onInbound,
      {
        type: 'button',
        target,
        from: { id: interaction.user.id, name: interaction.user.username },
        data: interaction.customId,
        message: { ...target, messageId: interaction.message.id },
        acknowledge: async (text) => {
          if (!answered()) return;
          await (
            text
              ? interaction.reply({ content: text.slice(0, 2_000), flags: 64 }) // 64: only the presser sees it
              : interaction.deferUpdate()
          ).catch((error: unknown) =>
            this.options.onError?.(`discord: acknowledge: ${(error as Error).message}`),
          );
        },
        askForText: async (title) => {
          if (!answered()) return;
          await interaction.showModal({
            custom_id: `${MODAL_PREFIX}${interaction.message.id}`, // read back by modalMessageId
            title: title.slice(0, 45),
            components: [
              {
                type: 1,
                components: [
                  {
                    type: 4,
                    custom_id: 'text',
                    label: 'Your answer',
                    style: 2,
                    required: true,
                    max_length: 4_000,
                  },
                ],
              },
            ],
          });
        },
      },
      direct,
    );
  }

  /** A form's words arrive as a reply to the prompt's message, the way a typed reply would. */
  private onModal(interaction: ModalSubmitInteraction, onInbound: (event: InboundEvent) => void): void {
    const promptMessageId = modalMessageId(interaction.customId);
    if (!promptMessageId) return;
    const { target, direct } = addressOf(interaction.channel, interaction.user.id);
    // Not our form (no `text` input): nothing to answer with.
    const text = interaction.fields.fields.has('text') ? interaction.fields.getTextInputValue('text') : null;
    if (text === null) return void interaction.deferUpdate().catch(() => undefined);
    const deadline = this.clock.after(
      ACK_DEADLINE_MS,
      () => void interaction.deferUpdate().catch(() => undefined),
    );
    this.emitIfListened(
      onInbound,
      {
        type: 'text',
        target,
        from: { id: interaction.user.id, name: interaction.user.username },
        text,
        messageId: interaction.id,
        acknowledge: async (reply) => {
          deadline.cancel();
          if (interaction.replied || interaction.deferred) return;
          await interaction
            .reply({ content: reply.slice(0, 2_000), flags: 64 })
            .catch((error: unknown) => this.options.onError?.(`discord: acknowledge: ${firstLine(error)}`));
        },
        replyTo: { ...target, messageId: promptMessageId },
      },
      direct,
    );
  }
}

/**
 * The prompt message a form belongs to, from the form's custom id (`answer:<message id>`); null for anything
 * else, so a forged id never reaches the store as a message id.
 */
export function modalMessageId(customId: string): string | null {
  const match = /^answer:(\d{5,20})$/.exec(customId);
  return match ? match[1]! : null;
}

/** Discord's "Request entity too large" (413, code 40005): the upload exceeds the server's limit. */
function isTooLarge(error: unknown): boolean {
  const { code, status } = (error ?? {}) as { code?: unknown; status?: unknown };
  return code === 40005 || status === 413;
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}

/**
 * Where an event happened, as agent-bridge addresses it: a thread under its parent channel; a DM as
 * `dm:<the person's id>` (the bot opens that DM to write there); anything else by its own id.
 */
function addressOf(
  channel: { id: string; isThread(): boolean; isDMBased(): boolean; parentId?: string | null } | null,
  person: string,
): { target: ChatTarget; direct: boolean } {
  if (!channel) return { target: { chatId: '' }, direct: false };
  if (channel.isDMBased()) return { target: { chatId: `${DM_PREFIX}${person}` }, direct: true };
  if (channel.isThread() && channel.parentId)
    return { target: { chatId: channel.parentId, threadId: channel.id }, direct: false };
  return { target: { chatId: channel.id }, direct: false };
}

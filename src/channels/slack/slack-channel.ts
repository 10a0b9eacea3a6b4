import type { App } from '@slack/bolt';
import { randomUUID } from 'node:crypto';
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
import { homeView, outcomeMessage, promptMessage, type HomeSection, type PromptMessage } from './blocks.js';
import { firstLine, platformError, SLACK_API_ROOT, SlackConnection, type RetryConfig } from './connection.js';
import { DM_PREFIX, SlackInbound } from './inbound.js';
import { toMrkdwn } from './mrkdwn.js';

export { SLACK_API_ROOT, SlackAuthError } from './connection.js';
export { DM_PREFIX } from './inbound.js';

/** The control panel's place on Slack: each allowed person's App Home tab. */
export const APP_HOME = 'app-home';
/** Text is split below Slack's `msg_too_long` (about 4,000 characters), after escaping. */
const POST_LIMIT = 3_900;
/** What the relay splits agent messages at, before they become mrkdwn (which may grow a little). */
export const SLACK_TEXT_LIMIT = 3_500;
/** Slack's hosts, whose URLs (response_url, file downloads) agent-bridge follows with its token or words. */
const SLACK_ORIGINS = new Set(['https://slack.com', 'https://files.slack.com', 'https://hooks.slack.com']);
/** Slack's answers when a message is too long for it: the prompt is sent again with less detail. */
const TOO_LONG = new Set(['msg_too_long', 'msg_blocks_too_long', 'invalid_blocks']);

export interface SlackOptions {
  /** The bot token (`xoxb-…`). */
  token: string;
  /** The app-level token (`xapp-…`, scope connections:write) for Socket Mode. */
  appToken: string;
  /** Another Web API root (a test's fake), `http://127.0.0.1:PORT/api/`; default Slack's. */
  apiRoot?: string;
  clock?: Clock;
  /** Which chats the bot listens to (`direct`: a DM); others are ignored. A thread counts as its parent. */
  listensTo?: (target: ChatTarget, direct: boolean) => boolean;
  /** Who sees the control panel on their App Home (the allowed people). */
  homeUsers?: () => string[];
  /** Told when the socket came back, so prompts can be re-delivered. */
  onReconnect?: () => void;
  /** Told about connection trouble and dropped payloads (one line, no secrets). */
  onError?: (message: string) => void;
  /** Socket Mode's reconnect delay (× failures in a row); tests make it short. */
  reconnectDelayMs?: number;
  retryConfig?: RetryConfig;
}

/**
 * Slack through @slack/bolt in Socket Mode: events, buttons, forms and the `/agent-bridge` command come over
 * the socket; sending goes through the Web API client (its queue honours `Retry-After`). A thread is a
 * target's `threadId` (its first message's ts) under the channel's `chatId`; a DM is `dm:<user id>`.
 */
export class SlackChannel implements Channel {
  readonly name = 'slack';
  readonly textLimit = SLACK_TEXT_LIMIT;
  private app: App | null = null;
  private connection: SlackConnection | null = null;
  private readonly clock: Clock;
  private readonly dms = new Map<string, string>();
  private readonly home = new Map<string, HomeSection>();

  constructor(private readonly options: SlackOptions) {
    this.clock = options.clock ?? systemClock;
  }

  get apiRoot(): string {
    const root = this.options.apiRoot ?? SLACK_API_ROOT;
    return root.endsWith('/') ? root : `${root}/`;
  }

  async start(onInbound: (event: InboundEvent) => void): Promise<void> {
    const listens = (target: ChatTarget, direct: boolean) =>
      !this.options.listensTo || this.options.listensTo(target, direct);
    const inbound = new SlackInbound({
      emit: (event, direct) => {
        if (this.app && listens(event.target, direct)) onInbound(event);
      },
      listens,
      ephemeral: (target, user, text, url) => this.ephemeral(target, user, text, url),
      openForm: async (trigger, view) =>
        void (await this.api().views.open({ trigger_id: trigger, view } as never)),
      download: (url, maxBytes) => this.download(url, maxBytes),
      homeOpened: (user) => this.publishHome([user]),
      report: (line) => this.options.onError?.(line),
    });
    const connection = new SlackConnection({
      token: this.options.token,
      appToken: this.options.appToken,
      apiRoot: this.apiRoot,
      clock: this.clock,
      ...(this.options.reconnectDelayMs ? { reconnectDelayMs: this.options.reconnectDelayMs } : {}),
      ...(this.options.retryConfig ? { retryConfig: this.options.retryConfig } : {}),
      ...(this.options.onReconnect ? { onReconnect: this.options.onReconnect } : {}),
      ...(this.options.onError ? { onError: this.options.onError } : {}),
    });
    this.connection = connection;
    try {
      // The app is ours from before it connects: events may arrive as soon as the socket says hello.
      await connection.open((app) => {
        this.app = app;
        inbound.register(app);
      });
    } catch (error) {
      this.app = null;
      this.connection = null;
      await connection.close();
      throw error;
    }
  }

  async stop(): Promise<void> {
    const connection = this.connection;
    this.app = null;
    this.connection = null;
    await connection?.close();
  }

  async sendText(target: ChatTarget, text: string): Promise<MessageRef> {
    const channel = await this.conversation(target);
    let ts = '';
    for (const piece of splitMessage(toMrkdwn(text || '(empty)'), POST_LIMIT)) {
      const posted = await this.api().chat.postMessage({
        channel,
        text: piece,
        ...thread(target),
        unfurl_links: false,
        unfurl_media: false,
      });
      ts = String(posted.ts ?? '');
    }
    return { ...target, messageId: ts };
  }

  /** Through files.uploadV2 (getUploadURLExternal, the upload, completeUploadExternal); the file's id is its ref. */
  async sendFile(target: ChatTarget, fileName: string, data: Buffer, caption?: string): Promise<MessageRef> {
    const channel = await this.conversation(target);
    const uploaded = await this.api().filesUploadV2({
      channel_id: channel,
      file: data,
      filename: fileName,
      title: fileName,
      ...(caption ? { initial_comment: toMrkdwn(caption).slice(0, POST_LIMIT) } : {}),
      ...thread(target),
    } as never);
    const completions = (uploaded as { files?: Array<{ files?: Array<{ id?: string }> }> }).files ?? [];
    return { ...target, messageId: completions[0]?.files?.[0]?.id ?? '' };
  }

  async sendPrompt(target: ChatTarget, prompt: PromptView): Promise<MessageRef> {
    const channel = await this.conversation(target);
    const post = (message: PromptMessage) =>
      this.api().chat.postMessage({ channel, ...message, ...thread(target), unfurl_links: false } as never);
    let posted: { ts?: string };
    try {
      posted = await post(promptMessage(prompt));
    } catch (error) {
      // The detail gives way, never the buttons: once more with the short excerpt only.
      if (!TOO_LONG.has(platformError(error) ?? '')) throw error;
      posted = await post(promptMessage({ ...prompt, detail: prompt.excerpt.slice(0, 300) }));
    }
    return { ...target, messageId: String(posted.ts ?? '') };
  }

  async showOutcome(ref: MessageRef, prompt: PromptView, outcome: PromptOutcome): Promise<void> {
    const channel = await this.conversation(ref);
    const update = (message: PromptMessage) =>
      this.api().chat.update({ channel, ts: ref.messageId, ...message } as never);
    try {
      await update(outcomeMessage(prompt, outcome));
    } catch (error) {
      if (!TOO_LONG.has(platformError(error) ?? '')) throw error;
      await update(outcomeMessage({ ...prompt, detail: prompt.excerpt.slice(0, 300) }, outcome));
    }
  }

  async editText(ref: MessageRef, text: string): Promise<void> {
    const channel = await this.conversation(ref);
    await this.api().chat.update({
      channel,
      ts: ref.messageId,
      text: toMrkdwn(text).slice(0, POST_LIMIT),
      blocks: [],
    });
  }

  /** The control panel lives on the App Home (`APP_HOME`): one section a project, shown to every allowed person. */
  async sendPanel(
    target: ChatTarget,
    text: string,
    buttons: PanelButton[][],
    ref?: MessageRef,
  ): Promise<MessageRef> {
    if (target.chatId !== APP_HOME) throw new Error('slack: the control panel lives on the App Home');
    const key = ref?.messageId ?? `panel-${randomUUID().slice(0, 8)}`;
    this.home.set(key, { text, buttons });
    await this.publishHome(this.options.homeUsers?.() ?? []);
    return { ...target, messageId: key };
  }

  private api(): App['client'] {
    if (!this.app) throw new Error('slack channel is not started');
    return this.app.client;
  }

  /** A channel id as Slack takes it: a DM (`dm:U…`) is opened once (conversations.open) and remembered. */
  private async conversation(target: ChatTarget): Promise<string> {
    if (!target.chatId.startsWith(DM_PREFIX)) return target.chatId;
    const user = target.chatId.slice(DM_PREFIX.length);
    const known = this.dms.get(user);
    if (known) return known;
    const opened = await this.api().conversations.open({ users: user });
    const id = opened.channel?.id;
    if (!id) throw new Error(`slack: cannot open a DM with ${user}`);
    this.dms.set(user, id);
    return id;
  }

  /** A URL agent-bridge may follow with its token or words: Slack's own hosts, or the configured API root's. */
  private trusted(url: string | undefined): url is string {
    if (!url) return false;
    try {
      const origin = new URL(url).origin;
      return SLACK_ORIGINS.has(origin) || origin === new URL(this.apiRoot).origin;
    } catch {
      return false;
    }
  }

  private async ephemeral(
    target: ChatTarget,
    user: string,
    text: string,
    responseUrl?: string,
  ): Promise<void> {
    const words = toMrkdwn(text).slice(0, POST_LIMIT);
    try {
      if (this.trusted(responseUrl)) {
        const response = await fetch(responseUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ response_type: 'ephemeral', replace_original: false, text: words }),
          signal: AbortSignal.timeout(15_000),
        });
        if (response.ok) return;
      }
      const channel = await this.conversation(target);
      await this.api().chat.postEphemeral({ channel, user, text: words, ...thread(target) });
    } catch (error) {
      this.options.onError?.(`slack: could not answer ${user}: ${firstLine(error)}`);
    }
  }

  private async download(url: string | undefined, maxBytes: number): Promise<Buffer> {
    // The bot token goes to Slack's file host only: a file somewhere else is refused, unread.
    if (!this.trusted(url)) throw new Error('the file is not on Slack');
    return fetchCapped(url, maxBytes, { headers: { authorization: `Bearer ${this.options.token}` } });
  }

  private async publishHome(users: string[]): Promise<void> {
    const allowed = new Set(this.options.homeUsers?.() ?? []);
    const view = homeView([...this.home.values()], this.clock.now());
    for (const user of users.filter((u) => allowed.has(u))) {
      await this.api()
        .views.publish({ user_id: user, view } as never)
        .catch((error: unknown) =>
          this.options.onError?.(`slack: could not update the App Home: ${firstLine(error)}`),
        );
    }
  }
}

function thread(target: ChatTarget): { thread_ts?: string } {
  return target.threadId ? { thread_ts: target.threadId } : {};
}

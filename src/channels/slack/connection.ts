import type { App, Logger, SocketModeReceiver } from '@slack/bolt';
import { Backoff } from '../../core/backoff.js';
import type { Clock, TimerHandle } from '../../core/clock.js';

/**
 * The Socket Mode connection through @slack/bolt: a bot token for the Web API, an app-level token for the
 * socket (no inbound port, as Telegram's long polling). Bolt and @slack/socket-mode reconnect by themselves
 * on `disconnect` (`refresh_requested`), on a dropped socket and on missed pongs; this module adds what they
 * lack: a reconnect that fails is retried (with backoff) instead of ending as an unhandled rejection, a
 * reconnect still under way when we stop does not connect again afterwards, and malformed socket frames are
 * dropped before socket-mode reads them (it would throw on them, unhandled).
 */

export const SLACK_API_ROOT = 'https://slack.com/api/';

export interface ConnectionOptions {
  token: string;
  appToken: string;
  /** The Web API root, `https://slack.com/api/` or a test's fake, `http://127.0.0.1:PORT/api/`. */
  apiRoot: string;
  clock: Clock;
  /** Socket Mode waits this long × the failures in a row before reconnecting (its ping timeout, 5 s). */
  reconnectDelayMs?: number;
  /** Web API retries (node-retry options); web-api honours `Retry-After` on 429s between them. */
  retryConfig?: RetryConfig;
  onReconnect?: () => void;
  onError?: (message: string) => void;
}

export interface RetryConfig {
  retries: number;
  factor?: number;
  minTimeout?: number;
  maxTimeout?: number;
}

/** A failed send is retried a few times (after Retry-After on a 429); the relay retries later beyond that. */
const DEFAULT_RETRIES: RetryConfig = { retries: 5, factor: 2, minTimeout: 1_000, maxTimeout: 30_000 };
/** The socket's own `apps.connections.open` calls: fail fast, and let the reconnect loop back off. */
const SOCKET_RETRIES: RetryConfig = { retries: 2, factor: 2, minTimeout: 500, maxTimeout: 5_000 };
const REQUEST_TIMEOUT_MS = 15_000;
const FRAME_TYPES = new Set(['hello', 'disconnect', 'events_api', 'interactive', 'slash_commands']);

export class SlackAuthError extends Error {
  override name = 'SlackAuthError';
}

type SocketClient = SocketModeReceiver['client'];

export class SlackConnection {
  private receiver: SocketModeReceiver | null = null;
  private stopping = false;
  private down = false;
  private retryTimer: TimerHandle | null = null;
  private readonly backoff = new Backoff(1_000, 60_000);

  constructor(private readonly options: ConnectionOptions) {}

  /** Builds the app, lets `register` add its listeners, checks the bot token (auth.test) and connects. */
  async open(register: (app: App) => void): Promise<App> {
    const { App, SocketModeReceiver } = await import('@slack/bolt');
    const logger = quietLogger(this.options.onError);
    const clientOptions = {
      slackApiUrl: this.options.apiRoot,
      retryConfig: this.options.retryConfig ?? DEFAULT_RETRIES,
      timeout: REQUEST_TIMEOUT_MS,
    };
    const receiver = new SocketModeReceiver({
      appToken: this.options.appToken,
      logger,
      clientPingTimeout: this.options.reconnectDelayMs ?? 5_000,
      installerOptions: { clientOptions: { ...clientOptions, retryConfig: SOCKET_RETRIES } },
      processEventErrorHandler: async ({ error }) => {
        this.say(`an event failed: ${firstLine(error)}`);
        return false;
      },
    });
    const app = new App({
      token: this.options.token,
      receiver,
      clientOptions,
      logger,
      deferInitialization: true,
    });
    app.error(async (error) => this.say(firstLine(error)));
    register(app);
    this.guardFrames(receiver.client);
    await this.checkBotToken(app);
    this.receiver = receiver;
    await this.connect(app, receiver.client);
    return app;
  }

  async close(): Promise<void> {
    this.stopping = true;
    this.retryTimer?.cancel();
    this.retryTimer = null;
    // Waits for the close handshake (the receiver's own stop() resolves before it ends).
    await this.receiver?.client.disconnect().catch(() => undefined);
  }

  /** Bolt's init() calls auth.test with the bot token (and keeps the bot's ids to ignore its own messages). */
  private async checkBotToken(app: App): Promise<void> {
    try {
      await app.init();
    } catch (error) {
      const code = platformError(error);
      if (code && AUTH_ERRORS.has(code))
        throw new SlackAuthError(
          `slack refused the bot token (${code}): check channels.slack.token (xoxb-…)`,
        );
      throw new Error(`slack: cannot reach ${this.options.apiRoot}: ${firstLine(error)}`);
    }
  }

  private async connect(app: App, client: SocketClient): Promise<void> {
    try {
      await app.start();
    } catch (error) {
      await client.disconnect().catch(() => undefined);
      const code = platformError(error);
      if (code && AUTH_ERRORS.has(code))
        throw new SlackAuthError(
          `slack refused the app-level token (${code}): check channels.slack.app_token (xapp-…, scope connections:write)`,
        );
      throw new Error(`slack: cannot open the Socket Mode connection: ${firstLine(error)}`);
    }
    this.guardReconnects(client);
    client.on('reconnecting', () => void (this.down = true));
    client.on('connected', () => {
      this.backoff.reset();
      if (!this.down) return;
      this.down = false;
      this.options.onReconnect?.();
    });
  }

  /**
   * socket-mode reconnects by calling its own start(), whose rejection nobody catches, and a start under way
   * when we stop would connect again afterwards: failures are retried with backoff, late connections closed.
   */
  private guardReconnects(client: SocketClient): void {
    const start = client.start.bind(client);
    const guarded = async () => {
      try {
        const opened = await start();
        if (this.stopping) await client.disconnect();
        return opened;
      } catch (error) {
        if (!this.stopping) this.retryLater(guarded, error);
        return undefined;
      }
    };
    client.start = guarded as SocketClient['start'];
  }

  private retryLater(start: () => Promise<unknown>, error: unknown): void {
    const delay = this.backoff.next();
    this.down = true;
    this.say(`the connection failed (${firstLine(error)}); trying again in ${Math.round(delay / 1000)} s`);
    this.retryTimer?.cancel();
    this.retryTimer = this.options.clock.after(delay, () => {
      this.retryTimer = null;
      if (!this.stopping) void start();
    });
  }

  /** Only frames of Slack's shapes reach socket-mode (it reads `payload.event.type` without looking). */
  private guardFrames(client: SocketClient): void {
    const internal = client as unknown as {
      onWebSocketMessage(data: unknown, isBinary: boolean): Promise<void>;
    };
    const read = internal.onWebSocketMessage.bind(client);
    client.removeAllListeners('ws_message');
    client.on('ws_message', (data: unknown, isBinary: boolean) => {
      const why = frameProblem(data, isBinary);
      if (why) return this.say(`ignored a socket message: ${why}`);
      read(data, isBinary).catch((error: unknown) =>
        this.say(`ignored a malformed socket message: ${firstLine(error)}`),
      );
    });
  }

  private say(line: string): void {
    this.options.onError?.(`slack: ${line}`);
  }
}

const AUTH_ERRORS = new Set([
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'not_allowed_token_type',
]);

/** Why a frame is not one of Slack's (null when it is). */
export function frameProblem(data: unknown, isBinary: boolean): string | null {
  if (isBinary || typeof data !== 'string') return 'not text';
  let frame: unknown;
  try {
    frame = JSON.parse(data);
  } catch {
    return 'not JSON';
  }
  if (!frame || typeof frame !== 'object') return 'not an object';
  const { type, envelope_id: envelope, payload } = frame as Record<string, unknown>;
  if (typeof type !== 'string' || !FRAME_TYPES.has(type))
    return `unknown type ${JSON.stringify(type)?.slice(0, 40)}`;
  if (type === 'hello' || type === 'disconnect') return null;
  if (typeof envelope !== 'string' || envelope.length > 200) return 'no envelope id';
  if (!payload || typeof payload !== 'object') return 'no payload';
  if (type !== 'events_api') return null;
  const event = (payload as { event?: unknown }).event;
  return event && typeof event === 'object' && typeof (event as { type?: unknown }).type === 'string'
    ? null
    : 'an event without a type';
}

/** Slack's error code (`invalid_auth`, `msg_too_long`…) of a failed Web API call, if it was one. */
export function platformError(error: unknown): string | null {
  const data = (error as { data?: { error?: unknown } } | null)?.data;
  return typeof data?.error === 'string' ? data.error : null;
}

export function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}

/** Bolt and socket-mode log to the console by default: here, warnings and errors go to `onError`, one line each. */
function quietLogger(onError?: (line: string) => void): Logger {
  let level = 'warn' as ReturnType<Logger['getLevel']>;
  const report = (...messages: unknown[]) =>
    onError?.(`slack: ${messages.map((m) => firstLine(m)).join(' ')}`.slice(0, 500));
  return {
    debug: () => undefined,
    info: () => undefined,
    warn: report,
    error: report,
    setLevel: (next) => void (level = next),
    getLevel: () => level,
    setName: () => undefined,
  };
}

import type { AgentSpec, LaunchOptions } from '../../agents/types.js';
import type { Channel, ChatTarget, InboundEvent } from '../../channels/contract.js';
import type { Clock } from '../../core/clock.js';
import { Merger } from '../../core/merger.js';
import { deliveryFor } from '../../core/output-batcher.js';
import { TokenBucketLimiter, type RateLimiter, type RateLimits } from '../../core/rate-limit.js';
import { routeMessage } from '../../core/router.js';
import type { HookReceiver } from '../../drivers/hooks/hook-receiver.js';
import type { SessionRecord } from '../../store/session-store.js';
import type { Store } from '../../store/store.js';
import { ChannelRelay } from '../channel-relay.js';
import type { LiveSessions } from '../live-sessions.js';
import { RepoSession, type RepoDefinition } from './repo-session.js';

export interface DaemonRepo extends RepoDefinition {
  /** Chats per channel that talk to this repository, e.g. { telegram: ['123'] }. */
  chats: Record<string, string[]>;
}

export interface DaemonSettings {
  repos: DaemonRepo[];
  idleTimeoutMs: number;
  outputThreshold: number;
  resume: boolean;
  rateLimits: Partial<RateLimits> | null;
}

export interface DaemonChannel {
  channel: Channel;
  allowedUsers: Set<string>;
  /** Where prompts of sessions from outside the daemon go (`run --approve-from`). */
  defaultChats: ChatTarget[];
  /** Bot channels take a lease (one poller per token); a terminal does not. */
  exclusive: boolean;
}

export interface DaemonOptions {
  store: Store;
  /**
   * The relays' own connection to the same database: SQLite tells a connection about other connections'
   * commits only, and the relays must notice what the sessions write. Default: a connection of its own.
   */
  relayStore?: Store;
  clock: Clock;
  settings: DaemonSettings;
  channels: DaemonChannel[];
  resolve: (
    spec: AgentSpec,
    options: LaunchOptions,
  ) => Promise<{ command: string; args: string[]; found: boolean }>;
  hooks?: HookReceiver;
  live?: LiveSessions;
  isAlive: (pid: number) => boolean;
  log: (line: string) => void;
}

const SELECTED = 'daemon:selected';

/**
 * `agent-bridge serve`: many repositories, many channels, one process (seed 000 generalised). Messages from a
 * chat mapped to a repository go through the router (bridge commands), the rate limits and the merger to that
 * repository's session, started lazily; its output goes to every chat mapped to it, batched.
 */
export class Daemon {
  private readonly repos = new Map<string, RepoSession>();
  private readonly mergers = new Map<string, Merger>();
  private readonly relays: ChannelRelay[] = [];
  private limiter: RateLimiter | null;
  private settings: DaemonSettings;

  constructor(private readonly options: DaemonOptions) {
    this.settings = options.settings;
    this.limiter = this.makeLimiter();
    this.applyRepos();
  }

  /** Starts every channel; a channel that cannot start is an error naming it. */
  async start(): Promise<string[]> {
    const hosted: string[] = [];
    for (const entry of this.options.channels) {
      const relay = this.relayFor(entry);
      try {
        if (await relay.start()) {
          this.relays.push(relay);
          hosted.push(entry.channel.name);
        }
      } catch (error) {
        throw new Error(`${entry.channel.name} could not start: ${(error as Error).message}`);
      }
    }
    return hosted;
  }

  /** SIGHUP: new repositories, mappings, limits and allowlists; running sessions are kept. */
  reload(settings: DaemonSettings, allowlists: Map<string, Set<string>>): void {
    this.settings = settings;
    this.limiter = this.makeLimiter();
    this.applyRepos();
    for (const relay of this.relays) {
      const users = allowlists.get(relay.name);
      if (users) relay.setAllowedUsers(users);
    }
  }

  /** Graceful shutdown: sessions stopped, their prompts left pending in the store, channels closed. */
  async stop(): Promise<void> {
    await Promise.all(
      [...this.repos.values()].map((repo) =>
        repo.stop('agent-bridge is shutting down', true).catch(() => undefined),
      ),
    );
    await Promise.all(this.relays.map((relay) => relay.stop().catch(() => undefined)));
  }

  repoNames(): string[] {
    return [...this.repos.keys()];
  }

  private makeLimiter(): RateLimiter | null {
    const limits = this.settings.rateLimits;
    return limits ? new TokenBucketLimiter(this.options.clock, limits) : null;
  }

  private applyRepos(): void {
    for (const repo of this.settings.repos) {
      const existing = this.repos.get(repo.name);
      if (existing && existing.state !== 'stopped') continue; // keep a running session as it is
      this.repos.set(repo.name, this.repoSession(repo));
    }
  }

  private repoSession(repo: DaemonRepo): RepoSession {
    const { store, clock, resolve } = this.options;
    return new RepoSession({
      repo,
      store,
      clock,
      idleTimeoutMs: this.settings.idleTimeoutMs,
      outputThreshold: this.settings.outputThreshold,
      resume: this.settings.resume,
      resolve,
      ...(this.options.hooks ? { hooks: this.options.hooks } : {}),
      ...(this.options.live ? { live: this.options.live } : {}),
      onOutput: (text) => void this.broadcast(repo.name, text),
      onNotice: (text) => void this.broadcast(repo.name, text),
    });
  }

  private definition(name: string): DaemonRepo | undefined {
    return this.settings.repos.find((repo) => repo.name === name);
  }

  private relayFor(entry: DaemonChannel): ChannelRelay {
    const name = entry.channel.name;
    return new ChannelRelay({
      channel: entry.channel,
      store: this.options.relayStore ?? this.options.store,
      clock: this.options.clock,
      chats: entry.defaultChats,
      allowedUsers: entry.allowedUsers,
      outputThreshold: this.settings.outputThreshold,
      isAlive: this.options.isAlive,
      log: this.options.log,
      exclusive: entry.exclusive,
      ...(entry.exclusive ? {} : { bookkeeping: `${name}:${process.pid}` }),
      chatsFor: (session) => this.chatsFor(name, session) ?? entry.defaultChats,
      routeText: (event) => this.onText(entry, event),
    });
  }

  /** The chats of a daemon session's repository on one channel; null for sessions from elsewhere. */
  private chatsFor(channel: string, session: SessionRecord): ChatTarget[] | null {
    if (session.ownerPid !== process.pid) return null;
    const repo = this.definition(session.label);
    if (!repo) return null;
    return (repo.chats[channel] ?? []).map((chatId) => ({ chatId }));
  }

  private repoForChat(channel: string, target: ChatTarget): RepoSession | null {
    const selected = this.options.store.channels.getState(channel, `${SELECTED}:${target.chatId}`);
    const mapped = this.settings.repos.filter((repo) => (repo.chats[channel] ?? []).includes(target.chatId));
    const name = mapped.find((repo) => repo.name === selected)?.name ?? mapped[0]?.name;
    return name ? (this.repos.get(name) ?? null) : null;
  }

  private async onText(
    entry: DaemonChannel,
    event: Extract<InboundEvent, { type: 'text' }>,
  ): Promise<boolean> {
    const channel = entry.channel.name;
    const reply = (text: string) => entry.channel.sendText(event.target, text).then(() => true);
    const repo = this.repoForChat(channel, event.target);
    if (!repo) return false;
    const route = routeMessage(event.text);
    if (route.type === 'bridge') return this.onCommand(entry, event, repo, route.command, route.args);
    const decision = await this.limiter?.check({
      userId: channel === 'terminal' ? 'terminal' : event.from.id,
      channelKey: `${channel}:${event.target.chatId}`,
    });
    if (decision && !decision.allowed) {
      const seconds = Math.ceil(decision.retryAfterMs / 1000);
      return reply(
        `Slow down a little: too many messages from ${decision.scope === 'user' ? 'you' : 'this chat'}. Try again in ${seconds} s.`,
      );
    }
    const merger = this.mergers.get(repo.repo.name) ?? new Merger(this.options.clock);
    this.mergers.set(repo.repo.name, merger);
    try {
      await repo.send(merger.format(channel, route.text));
    } catch (error) {
      return reply(
        `${repo.repo.name}: could not start ${repo.repo.agent.displayName}: ${(error as Error).message}`,
      );
    }
    return true;
  }

  private async onCommand(
    entry: DaemonChannel,
    event: Extract<InboundEvent, { type: 'text' }>,
    repo: RepoSession,
    command: string,
    args: string,
  ): Promise<boolean> {
    const reply = (text: string) => entry.channel.sendText(event.target, text).then(() => true);
    switch (command) {
      case 'status':
        return reply(this.statusText(repo));
      case 'cancel':
        return reply(
          repo.cancel() ? `${repo.repo.name}: interrupted (Ctrl-C sent)` : `${repo.repo.name}: not running`,
        );
      case 'restart':
        await repo.stop('restarted from chat');
        return reply(
          `${repo.repo.name}: stopped; the next message starts ${repo.repo.agent.displayName} again`,
        );
      case 'select': {
        const mapped = this.settings.repos.filter((r) =>
          (r.chats[entry.channel.name] ?? []).includes(event.target.chatId),
        );
        const chosen = mapped.find((r) => r.name === args.trim());
        if (!chosen) return reply(`Usage: /select <repo> — one of: ${mapped.map((r) => r.name).join(', ')}`);
        this.options.store.channels.setState(
          entry.channel.name,
          `${SELECTED}:${event.target.chatId}`,
          chosen.name,
        );
        return reply(`Messages here now go to ${chosen.name} (${chosen.agent.displayName})`);
      }
      case 'help':
        return reply(HELP);
      default:
        return false; // /sessions, /switch, /approvals: the relay's chat commands
    }
  }

  private statusText(repo: RepoSession): string {
    const waiting = repo.sessionId ? this.options.store.prompts.open(repo.sessionId).length : 0;
    const idle = Math.round(repo.idleForMs() / 1000);
    return `${repo.repo.name} · ${repo.repo.agent.displayName} · ${repo.state} · idle ${idle} s · ${waiting} prompt(s) waiting · ${repo.repo.dir}`;
  }

  /** Every chat mapped to the repository gets the text; one failing channel never stops the others. */
  private async broadcast(repoName: string, text: string): Promise<void> {
    const repo = this.definition(repoName);
    if (!repo) return;
    for (const entry of this.options.channels) {
      for (const chatId of repo.chats[entry.channel.name] ?? []) {
        const delivery = deliveryFor(text, this.settings.outputThreshold, this.options.clock.now());
        const target = { chatId };
        const sent =
          delivery.kind === 'text'
            ? entry.channel.sendText(target, delivery.text)
            : entry.channel.sendFile(target, delivery.fileName, delivery.data, repoName);
        await sent.catch((error: unknown) =>
          this.options.log(
            `${entry.channel.name}: could not deliver output of ${repoName}: ${(error as Error).message}`,
          ),
        );
      }
    }
  }
}

const HELP = [
  'Messages go to the agent of the repository mapped to this chat. Bridge commands:',
  '/status — agent, state, idle time, waiting prompts · /cancel — interrupt (Ctrl-C) · /restart — stop; the next message starts it',
  '/select <repo> — choose the repository when several are mapped here · /sessions, /switch, /approvals — as usual',
  "!skill args — runs the agent's own /skill · any other /command goes to the agent as typed",
].join('\n');

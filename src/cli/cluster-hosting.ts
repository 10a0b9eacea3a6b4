import { hostname } from 'node:os';
import { currentDiscoveryEnv } from '../agents/discovery.js';
import { discoverAll } from '../agents/registry.js';
import type { ClusterHub } from '../cluster/cluster-hub.js';
import {
  ClusterConfigError,
  parseServers,
  readCredentials,
  type ClusterSettings,
} from '../cluster/settings.js';
import { hubCommand } from '../cluster/hub-commands.js';
import { DEFAULT_HUB, nameProblem } from '../cluster/names.js';
import { nodeActions } from '../cluster/node-actions.js';
import { hubRemoteSessions } from '../cluster/remote.js';
import type { SharedRateLimits } from '../cluster/shared-rate-limits.js';
import type { RateLimiter, RateRequest } from '../core/rate-limit.js';
import { expandDir } from '../config/repos.js';
import type { Config } from '../config/schema.js';
import { systemClock } from '../core/clock.js';
import type { Daemon, DaemonOptions, DaemonSettings } from '../sessions/daemon/daemon.js';
import type { LiveSessions } from '../sessions/live-sessions.js';
import type { RemoteSessions } from '../sessions/remote-sessions.js';
import { SessionsWebBackend } from '../sessions/web-backend.js';
import { openStore, type Store } from '../store/store.js';
import { UsageError } from './errors.js';

/** `serve`'s flags for many machines (they win over the config's `cluster:` section). */
export interface ClusterFlags {
  nats?: string;
  node?: string;
  natsCredentials?: string;
}

/** The channel name a node's sessions say their messages are for: the hubs, through the bus. */
export const HUB_CHANNEL = 'hub';

/**
 * How this `serve` takes part, from its flags and the config's `cluster:` section; null for one machine
 * alone (no NATS at all). Paths are relative to the config file's folder.
 */
export function clusterSettings(flags: ClusterFlags, config: Config, base: string): ClusterSettings | null {
  const section = config.cluster;
  const nats = flags.nats ?? section?.nats;
  if (!nats) {
    if (flags.node || flags.natsCredentials)
      throw new UsageError('--node and --nats-credentials need --nats <url> (or cluster.nats in the config)');
    return null;
  }
  const credentials = flags.natsCredentials ?? section?.credentials;
  if (!credentials)
    throw new UsageError(
      "--nats needs this machine's key: --nats-credentials <file> (agent-bridge cluster init writes one per machine)",
    );
  const node = flags.node ?? section?.node;
  const name = node ?? section?.hub ?? DEFAULT_HUB;
  const problem = nameProblem(name);
  if (problem) throw new UsageError(`--node: ${problem}`);
  try {
    // A key file that is missing, foreign or readable by others is said before anything starts.
    readCredentials(expandDir(credentials, base));
    return {
      role: node ? 'node' : 'hub',
      name,
      servers: parseServers(nats),
      credentials: expandDir(credentials, base),
      ...(section?.tls
        ? {
            tls: {
              ...(section.tls.ca ? { ca: expandDir(section.tls.ca, base) } : {}),
              ...(section.tls.cert ? { cert: expandDir(section.tls.cert, base) } : {}),
              ...(section.tls.key ? { key: expandDir(section.tls.key, base) } : {}),
            },
          }
        : {}),
    };
  } catch (error) {
    if (error instanceof ClusterConfigError) throw new UsageError(error.message);
    throw error;
  }
}

/** A node hosts agents only: chats are the hub's (one bot token allows one poller). */
export function refuseNodeChannels(settings: ClusterSettings | null, config: Config): void {
  if (settings?.role !== 'node') return;
  const channels = Object.keys(config.channels).filter((name) => config.channels[name as 'telegram']);
  if (channels.length > 0)
    throw new UsageError(
      `a node hosts no chat channels (${channels.join(', ')} is the hub's): remove channels: from this machine's config`,
    );
}

/** On a node, every repository's session keeps its messages for the hubs. */
export function forRole(settings: DaemonSettings, cluster: ClusterSettings | null): DaemonSettings {
  if (cluster?.role !== 'node') return settings;
  return {
    ...settings,
    repos: settings.repos.map((repo) =>
      repo.channels.includes(HUB_CHANNEL) ? repo : { ...repo, channels: [...repo.channels, HUB_CHANNEL] },
    ),
  };
}

export interface ClusterRole {
  /** Said once `serve` is up. */
  banner: string;
  close(): Promise<void>;
}

export interface ClusterParts {
  /** The store sessions write to, and a second connection that notices their commits (serve's two). */
  store: Store;
  watchStore: Store;
  daemon: Daemon;
  live: LiveSessions;
  settings: () => DaemonSettings;
  /** The channels this serve hosts (a hub serves its nodes' sessions on all of them). */
  channels: string[];
  version: string;
  log: (line: string) => void;
  /** The store's last message before the daemon started any session (a node's first join goes on from it). */
  lastMessageBeforeStart: number;
}

/** The hub's chat commands, for the daemon (bound once the hub is up). */
export function hubCommands(role: () => ClusterHub | null, store: Store): DaemonOptions['commands'] {
  return async (text, from, say) => {
    const hub = role();
    if (!hub) return false;
    return hubCommand(text, { hub, store, by: `${from.channel}:${from.user}`, say, now: Date.now() });
  };
}

/** Joins the cluster as its role says: a connection of the store of its own, closed with it. */
export async function startClusterRole(
  settings: ClusterSettings,
  parts: ClusterParts,
  bindHub: (hub: ClusterHub) => void,
): Promise<ClusterRole> {
  const store = openStore();
  try {
    const where = settings.servers.join(', ');
    if (settings.role === 'hub') {
      // The NATS client is loaded only by a machine that joins a cluster.
      const { ClusterHub } = await import('../cluster/cluster-hub.js');
      const hub = await ClusterHub.start({
        settings,
        version: parts.version,
        store,
        channels: () => parts.channels,
        clock: systemClock,
        log: parts.log,
        changed: () => parts.daemon.panelsChanged(),
      });
      bindHub(hub);
      return {
        banner: `agent-bridge serve: hub "${settings.name}" of the cluster at ${where}; /nodes lists the machines\n`,
        close: async () => {
          await hub.stop();
          store.close();
        },
      };
    }
    const sessions = starter(parts);
    const { ClusterNode } = await import('../cluster/cluster-node.js');
    const node = await ClusterNode.start({
      settings,
      version: parts.version,
      store,
      actions: nodeActions({ daemon: parts.daemon, live: parts.live, starter: sessions, store }),
      hello: () => hello(parts),
      clock: systemClock,
      log: parts.log,
      firstJoinAfterMessage: parts.lastMessageBeforeStart,
    });
    return {
      banner: `agent-bridge serve: node "${settings.name}" of the cluster at ${where}: its sessions are answered from the hub\n`,
      close: async () => {
        sessions.close();
        await node.stop();
        store.close();
      },
    };
  } catch (error) {
    store.close();
    throw error;
  }
}

/** Sessions a hub asks for by agent and folder start as the web UI's do, their messages kept for the hubs. */
function starter(parts: ClusterParts): SessionsWebBackend {
  return new SessionsWebBackend({
    store: parts.store,
    watchStore: parts.watchStore,
    clock: systemClock,
    live: parts.live,
    hooks: true,
    version: parts.version,
    cwd: process.cwd(),
    approveFrom: [HUB_CHANNEL],
    promptTtlMs: () => parts.daemon.promptTtlMs,
  });
}

async function hello(parts: ClusterParts) {
  const found = await discoverAll(currentDiscoveryEnv());
  return {
    hostname: hostname(),
    version: parts.version,
    repos: parts.settings().repos.map((repo) => ({ name: repo.name, agent: repo.agent.id, dir: repo.dir })),
    agents: found.filter((f) => f.discovered.found).map((f) => f.spec.id),
  };
}

/**
 * One `serve`'s part in the cluster, from its flags and config: what it changes in the daemon's settings and
 * options before they start, then the role itself (hub or node) once the channels and the web UI are up.
 */
export class ServeCluster {
  private hub: ClusterHub | null = null;
  private role: ClusterRole | null = null;

  /** `defaults.rate_limit.redis`: the hub's rate limits counted in Redis, shared with the other hubs. */
  private limits: Promise<SharedRateLimits> | null = null;

  private constructor(
    readonly settings: ClusterSettings,
    private readonly version: string,
    private readonly redis: string | undefined,
  ) {}

  /** Null for one machine alone: nothing of the cluster is loaded or started. */
  static prepare(flags: ClusterFlags, config: Config, base: string, version: string): ServeCluster | null {
    const settings = clusterSettings(flags, config, base);
    refuseNodeChannels(settings, config);
    const redis = config.defaults.rate_limit.redis;
    if (redis && settings?.role !== 'hub')
      throw new UsageError(
        settings
          ? 'defaults.rate_limit.redis is for hubs (a node takes no chat messages): remove it from this machine'
          : 'defaults.rate_limit.redis shares rate limits between the hubs of a cluster: add cluster: (see Many machines), or remove redis:',
      );
    return settings ? new ServeCluster(settings, version, redis) : null;
  }

  forRole(settings: DaemonSettings): DaemonSettings {
    return forRole(settings, this.settings);
  }

  /** The hub's web UI starts and stops sessions on its nodes (once the hub is up; before, there are none). */
  webOptions(): { remote?: RemoteSessions } {
    if (this.settings.role !== 'hub') return {};
    return { remote: hubRemoteSessions(() => this.hub) };
  }

  /** The hub answers /nodes, /start and /stop in the chats, and counts rate limits with the other hubs. */
  daemonOptions(
    store: Store,
    log: (line: string) => void,
  ): Pick<DaemonOptions, 'commands' | 'limiter' | 'remoteProjects'> {
    if (this.settings.role !== 'hub') return {};
    const redis = this.redis;
    const limits = redis
      ? import('../cluster/shared-rate-limits.js').then(
          ({ SharedRateLimits }) => new SharedRateLimits(redis, log),
        )
      : null;
    this.limits = limits;
    return {
      commands: hubCommands(() => this.hub, store),
      // The nodes' repositories on the control panel, `api@laptop`, with Start and Stop.
      remoteProjects: {
        list: async () => this.hub?.panelProjects() ?? [],
        act: async (action, project, by) => this.hub?.panelAction(action, project, by) ?? null,
      },
      ...(limits
        ? { limiter: (l: Parameters<SharedRateLimits['limiter']>[0]) => lazyLimiter(limits, l) }
        : {}),
    };
  }

  async start(parts: Omit<ClusterParts, 'version'>): Promise<void> {
    const all = { ...parts, version: this.version };
    this.role = await startClusterRole(this.settings, all, (hub) => (this.hub = hub));
  }

  get banner(): string {
    return this.role?.banner ?? '';
  }

  async close(): Promise<void> {
    await this.role?.close().catch(() => undefined);
    await this.limits?.then((limits) => limits.close());
  }
}

/** A limiter whose Redis client is loaded when the hub starts (the rest of serve does not wait for it). */
function lazyLimiter(
  shared: Promise<SharedRateLimits>,
  limits: Parameters<SharedRateLimits['limiter']>[0],
): RateLimiter {
  const limiter = shared.then((s) => s.limiter(limits));
  return { check: async (request: RateRequest) => (await limiter).check(request) };
}

import { randomUUID } from 'node:crypto';
import { jetstream } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Clock } from '../core/clock.js';
import type { PanelProject } from '../sessions/daemon/control-panel.js';
import { MachineAwayError } from '../sessions/remote-sessions.js';
import { ClusterStore, type NodeRecord } from '../store/cluster-store.js';
import type { Store } from '../store/store.js';
import { connectCluster, type ClusterSettings } from './connection.js';
import { HubForwarder } from './hub-forwarder.js';
import { HubMirror } from './hub-mirror.js';
import { EVENTS_STREAM, subjects } from './names.js';
import { OutboxSender } from './outbox.js';
import { ago, NodePresence } from './presence.js';
import { ensureHubConsumer, ensureStreams } from './streams.js';
import type { ControlCommand, HelloEvent, ResultEvent } from './wire.js';

export interface ClusterHubOptions {
  settings: ClusterSettings;
  version: string;
  /** A connection of the hub's store for the cluster alone (it notices the relays' and web UI's commits). */
  store: Store;
  /** The channels this hub hosts: a node's sessions are served on all of them. */
  channels: () => string[];
  clock: Clock;
  log: (line: string) => void;
  /** Something of a node changed (the control panel shows its projects). */
  changed?: () => void;
}

export interface NodeView {
  name: string;
  hostname: string;
  /** Connected now (it answered a ping), as far as a ping can tell. */
  online: boolean;
  /** When it was last seen connected: its last answer to a ping of this hub, or its last hello. */
  seenAt: number;
  repos: HelloEvent['repos'];
  agents: string[];
  running: number;
}

/** A control command as asked for (each kind of its own; the hub gives it its id). */
type Control = ControlCommand extends infer C ? (C extends unknown ? Omit<C, 'requestId'> : never) : never;

/** How long the web UI waits for a node to start a session. */
export const LAUNCH_TIMEOUT_MS = 30_000;
/**
 * A launch expires on the node this much before the hub gives up on it: the node's clock may run behind the
 * hub's by up to this, and a start the hub said had failed still never happens.
 */
export const CLOCK_SLACK_MS = 5_000;

/**
 * The hub's side of the cluster: makes the streams, mirrors every node's sessions, prompts and messages into
 * the hub's store (the relays and the web UI then serve them like the hub's own), and forwards answers, typed
 * text and requests to the nodes. It decides nothing a node owns.
 */
export class ClusterHub {
  private readonly cluster: ClusterStore;
  private readonly pending = new Map<string, (result: ResultEvent) => void>();
  /** Waiting for a node's session to be mirrored here (a session started from this hub). */
  private readonly mirrorWaiters = new Set<() => void>();
  private readonly mirror: HubMirror;
  private readonly forwarder: HubForwarder;
  private readonly outbox: OutboxSender;
  private readonly presence: NodePresence;
  /** Connected to NATS now (nothing reaches a node while it is not). */
  private connected = true;

  private constructor(
    private readonly options: ClusterHubOptions,
    private readonly nc: NatsConnection,
  ) {
    const { store, clock, log, settings } = options;
    this.cluster = new ClusterStore(store.db, clock);
    this.outbox = new OutboxSender(this.cluster, jetstream(nc), clock, log);
    this.forwarder = new HubForwarder({
      hub: settings.name,
      store,
      cluster: this.cluster,
      outbox: this.outbox,
      clock,
      log,
    });
    this.mirror = new HubMirror({
      hub: settings.name,
      nc,
      store,
      cluster: this.cluster,
      approveFrom: options.channels,
      clock,
      log,
      onResult: (_node, result) => {
        const waiting = this.pending.get(result.requestId);
        this.pending.delete(result.requestId);
        waiting?.(result);
      },
      changed: (kind) => {
        this.forwarder.poke();
        // A project's state or waiting prompts, not every message it says.
        if (kind === 'session' || kind === 'prompt' || kind === 'hello') options.changed?.();
        for (const check of [...this.mirrorWaiters]) check();
      },
    });
    this.presence = new NodePresence((node) => this.ping(node), clock);
  }

  static async start(options: ClusterHubOptions): Promise<ClusterHub> {
    const nc = await connectCluster(options.settings, options.version);
    try {
      const jsm = await ensureStreams(nc);
      await ensureHubConsumer(jsm, options.settings.name);
      const created = (await jsm.streams.info(EVENTS_STREAM)).created;
      const hub = new ClusterHub(options, nc);
      hub.mirror.start(`hub:${options.settings.name}:${created}`);
      hub.forwarder.start();
      hub.watchConnection();
      return hub;
    } catch (error) {
      await nc.close().catch(() => undefined);
      throw error;
    }
  }

  async stop(): Promise<void> {
    await this.mirror.stop();
    await this.forwarder.stop();
    await this.outbox.stop();
    await this.nc.drain().catch(() => undefined);
  }

  /** The nodes this hub has heard of, each asked at once whether it is connected. */
  async nodes(): Promise<NodeView[]> {
    const running = new Map<string, number>();
    for (const session of this.options.store.sessions.list())
      if (session.node) running.set(session.node, (running.get(session.node) ?? 0) + 1);
    return Promise.all(
      this.cluster.nodes().map(async (node) => {
        const online = await this.presence.check(node.name);
        return { ...view(node), online, seenAt: this.seenAt(node), running: running.get(node.name) ?? 0 };
      }),
    );
  }

  /**
   * Whether `node` is away as this hub last knew (from its last ping: a start, a stop, the machines listed):
   * null when it answered; else when it was last seen.
   */
  away(node: string): { lastSeen: number | null } | null {
    const record = this.cluster.nodes().find((n) => n.name === node);
    if (!record) return null;
    if (this.connected && !this.presence.away(node)) return null;
    return { lastSeen: this.seenAt(record) };
  }

  knows(node: string): boolean {
    return this.cluster.nodes().some((n) => n.name === node);
  }

  /**
   * Asks a node to start or stop something; `onResult` hears what became of it (when this hub is still up).
   * Returns the request's id.
   */
  request(node: string, control: Control, onResult?: (result: ResultEvent) => void): string {
    const requestId = `control:${this.options.settings.name}:${randomUUID()}`;
    if (onResult) this.pending.set(requestId, onResult);
    this.outbox.add({
      id: requestId,
      subject: subjects.command(node, 'control'),
      payload: JSON.stringify({ requestId, ...control }),
    });
    return requestId;
  }

  /**
   * Asks `node` to start an agent in a folder of its own; resolves with the session's id once it is mirrored
   * here, rejects with the node's reason. A node that does not answer a ping now is refused at once, asking
   * nothing ({@link MachineAwayError}); one that does not answer in `timeoutMs` is given up on, and the request
   * has expired by then: the node refuses it when it comes (and a start that gets through all the same, from a
   * node whose clock runs far behind, is stopped again). What the person is told is what happens.
   */
  async launch(
    node: string,
    request: { agent: string; cwd: string; args?: string[] },
    by: string,
    timeoutMs = LAUNCH_TIMEOUT_MS,
  ): Promise<string> {
    if (!this.knows(node)) throw new Error(`no machine ${node} in this cluster (yet)`);
    if (!(await this.presence.check(node))) throw this.awayError(node, 'start it there');
    const { clock, log } = this.options;
    const expiresAt = clock.now() + timeoutMs - Math.min(CLOCK_SLACK_MS, timeoutMs / 2);
    return new Promise((resolve, reject) => {
      let check: (() => void) | null = null;
      let settled = false;
      const finish = (error: Error | null, id?: string) => {
        if (settled) return;
        settled = true;
        timer.cancel();
        if (check) this.mirrorWaiters.delete(check);
        if (error) reject(error);
        else resolve(id!);
      };
      const timer = clock.after(timeoutMs, () =>
        finish(
          new Error(
            `${node} did not answer in ${timeoutMs / 1000} s: nothing was started (the request has expired); is it connected? (see its machine)`,
          ),
        ),
      );
      this.request(node, { action: 'launch', ...request, by, expiresAt }, (result) => {
        if (settled) {
          // Given up on and said so: a start that got through all the same is undone.
          if (result.ok && result.started) {
            log(`cluster: ${node} started ${result.started} after this hub gave up on it; asked it to stop`);
            this.request(node, { action: 'stop', sessionId: result.started, by });
          }
          return;
        }
        if (!result.ok || !result.started) return finish(new Error(`${node}: ${result.text}`));
        const id = result.started;
        check = () => {
          if (this.cluster.nodeOf(id) === node) finish(null, id);
        };
        this.mirrorWaiters.add(check);
        check();
      });
    });
  }

  /**
   * Asks `node` to stop one of its sessions, now: refused ({@link MachineAwayError}, nothing asked) while the
   * node is away, so the person is never told "stopped" about a session that goes on.
   */
  async stopSession(node: string, sessionId: string, by: string): Promise<void> {
    if (!this.connected || !(await this.presence.check(node))) throw this.awayError(node, 'stop it');
    this.request(node, { action: 'stop', sessionId, by });
  }

  /** Each node's repositories for the control panel, named `<repo>@<node>`, as their mirrors say they run. */
  panelProjects(): PanelProject[] {
    const { store } = this.options;
    const running = store.sessions.list().filter((s) => s.node);
    return this.cluster.nodes().flatMap((node) =>
      view(node).repos.map((repo) => {
        const session = running.find((s) => s.node === node.name && s.label === repo.name);
        return {
          name: `${repo.name}@${node.name}`,
          agent: repo.agent,
          state: session ? ('running' as const) : ('stopped' as const),
          waiting: session ? store.prompts.open(session.id).length : 0,
          worktrees: [],
        };
      }),
    );
  }

  /** The control panel's Start or Stop on `<repo>@<node>`: asked of the node; what to acknowledge, or null. */
  panelAction(action: 'start' | 'stop', project: string, by: string): string | null {
    const at = project.lastIndexOf('@');
    const [repo, node] = [project.slice(0, at), project.slice(at + 1)];
    if (at < 1 || !this.knows(node)) return null;
    if (action === 'start') {
      this.request(node, { action: 'start', repo, by });
      return `Asked ${node} to start ${repo}…`;
    }
    const session = this.options.store.sessions.list().find((s) => s.node === node && s.label === repo);
    if (!session) return `${repo} is not running on ${node}.`;
    this.request(node, { action: 'stop', sessionId: session.id, by });
    return `Asked ${node} to stop ${repo}…`;
  }

  /** Why nothing was asked of `node`: it is away (or this hub is cut off from the bus), and what to do. */
  private awayError(node: string, what: string): MachineAwayError {
    const record = this.cluster.nodes().find((n) => n.name === node);
    const lastSeen = record ? this.seenAt(record) : null;
    if (!this.connected)
      return new MachineAwayError(
        node,
        lastSeen,
        `this hub has lost its connection to NATS (reconnecting): nothing reaches ${node}; try again in a moment`,
      );
    const seen =
      lastSeen === null ? 'not seen yet' : `last seen ${ago(this.options.clock.now() - lastSeen)} ago`;
    return new MachineAwayError(node, lastSeen, `${node} is away (${seen}): ${what} when it is back`);
  }

  /** When a node was last seen connected: its last answer to a ping, or its last hello. */
  private seenAt(node: NodeRecord): number {
    return Math.max(node.seenAt, this.presence.lastSeen(node.name) ?? 0);
  }

  private async ping(node: string): Promise<boolean> {
    try {
      await this.nc.request(subjects.ping(node), '', { timeout: 1_000 });
      return true;
    } catch {
      return false;
    }
  }

  /** After a reconnect, what waited is sent at once. */
  private watchConnection(): void {
    void (async () => {
      for await (const status of this.nc.status()) {
        if (status.type === 'reconnect') {
          this.connected = true;
          this.options.log('cluster: connected to NATS again');
          this.outbox.poke();
          this.forwarder.poke();
        } else if (status.type === 'disconnect') {
          this.connected = false;
          this.options.log('cluster: lost NATS; reconnecting');
        }
      }
    })().catch(() => undefined);
  }
}

function view(node: NodeRecord): Omit<NodeView, 'online' | 'running'> {
  const info = node.info as Partial<HelloEvent>;
  return {
    name: node.name,
    hostname: node.hostname,
    seenAt: node.seenAt,
    repos: info.repos ?? [],
    agents: info.agents ?? [],
  };
}

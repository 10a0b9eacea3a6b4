import { hostname } from 'node:os';
import { jetstream } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Clock } from '../core/clock.js';
import { ClusterStore } from '../store/cluster-store.js';
import type { Store } from '../store/store.js';
import { connectCluster, type ClusterSettings } from './connection.js';
import { subjects } from './names.js';
import { NodeCommands, type NodeActions } from './node-commands.js';
import { NodePublisher } from './node-publisher.js';
import { OutboxSender } from './outbox.js';
import type { HelloEvent } from './wire.js';

export interface ClusterNodeOptions {
  settings: ClusterSettings;
  version: string;
  /** A connection of the node's store for the cluster alone (it notices every other connection's commits). */
  store: Store;
  actions: NodeActions;
  /** What the node says of itself: its machine, repositories and installed agents. */
  hello: () => Promise<HelloEvent>;
  clock: Clock;
  log: (line: string) => void;
  /** The last message before this serve started any session (see NodePublisherOptions). */
  firstJoinAfterMessage?: number;
}

/**
 * A node's side of the cluster: publishes its sessions, their messages and prompts as they change in its own
 * store (the truth), and applies what its hubs ask (answers through its own guarded transition, typed text,
 * start and stop). It answers pings so hubs can say whether it is connected.
 */
export class ClusterNode {
  private readonly publisher: NodePublisher;
  private readonly commands: NodeCommands;
  private readonly outbox: OutboxSender;

  private constructor(
    private readonly options: ClusterNodeOptions,
    private readonly nc: NatsConnection,
  ) {
    const { store, clock, log, settings } = options;
    const cluster = new ClusterStore(store.db, clock);
    const js = jetstream(nc, { checkAPI: false });
    this.outbox = new OutboxSender(cluster, js, clock, log);
    this.publisher = new NodePublisher({
      node: settings.name,
      store,
      cluster,
      js,
      clock,
      hostname: hostname(),
      log,
      firstJoinAfterMessage: options.firstJoinAfterMessage,
    });
    this.commands = new NodeCommands({
      node: settings.name,
      nc,
      store,
      cluster,
      outbox: this.outbox,
      actions: options.actions,
      clock,
      log,
      changed: () => this.publisher.poke(),
    });
  }

  static async start(options: ClusterNodeOptions): Promise<ClusterNode> {
    const nc = await connectCluster(options.settings, options.version);
    const node = new ClusterNode(options, nc);
    node.answerPings();
    await node.sayHello();
    node.publisher.start();
    node.outbox.poke();
    node.commands.start();
    node.watchConnection();
    return node;
  }

  async stop(): Promise<void> {
    await this.commands.stop();
    await this.publisher.stop();
    await this.outbox.stop();
    await this.nc.drain().catch(() => undefined);
  }

  private async sayHello(): Promise<void> {
    try {
      await this.publisher.hello(await this.options.hello());
    } catch (error) {
      this.options.log(`cluster: could not say hello (${(error as Error).message}); will on reconnect`);
    }
  }

  private answerPings(): void {
    this.nc.subscribe(subjects.ping(this.options.settings.name), {
      callback: (error, message) => {
        if (!error) message.respond(JSON.stringify({ at: this.options.clock.now() }));
      },
    });
  }

  private watchConnection(): void {
    void (async () => {
      for await (const status of this.nc.status()) {
        if (status.type === 'reconnect') {
          this.options.log('cluster: connected to NATS again');
          this.publisher.poke();
          this.outbox.poke();
          void this.sayHello();
        } else if (status.type === 'disconnect') this.options.log('cluster: lost NATS; reconnecting');
      }
    })().catch(() => undefined);
  }
}

import {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
  type JetStreamManager,
} from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { COMMANDS_STREAM, EVENTS_STREAM, hubConsumer, nodeConsumer, subjects } from './names.js';

const DAY_NS = 24 * 60 * 60 * 1e9;

/**
 * The two streams, made by a hub (nodes may not): what nodes say is kept a week for hubs that were away
 * (every hub reads it with a durable consumer of its own); what hubs ask of a node is kept until the node has
 * taken it (a work queue), at most a day.
 */
export async function ensureStreams(nc: NatsConnection): Promise<JetStreamManager> {
  const jsm = await jetstreamManager(nc);
  await ensureStream(jsm, {
    name: EVENTS_STREAM,
    subjects: [subjects.allEvents],
    retention: RetentionPolicy.Limits,
    max_age: 7 * DAY_NS,
  });
  await ensureStream(jsm, {
    name: COMMANDS_STREAM,
    subjects: [subjects.allCommands],
    retention: RetentionPolicy.Workqueue,
    max_age: DAY_NS,
  });
  return jsm;
}

async function ensureStream(
  jsm: JetStreamManager,
  config: { name: string; subjects: string[]; retention: RetentionPolicy; max_age: number },
): Promise<void> {
  const full = {
    ...config,
    storage: StorageType.File,
    discard: DiscardPolicy.Old,
    // Every publish carries an id: one published again within this window (a retry after a lost ack) is kept once.
    duplicate_window: 10 * 60 * 1e9,
  };
  try {
    await jsm.streams.info(config.name);
    await jsm.streams.update(config.name, full);
  } catch (error) {
    if (!/stream not found/i.test((error as Error).message)) throw error;
    await jsm.streams.add(full);
  }
}

/** A hub's durable reader of every node's events, from the first it has not acknowledged. */
export async function ensureHubConsumer(jsm: JetStreamManager, hub: string): Promise<void> {
  await jsm.consumers.add(EVENTS_STREAM, {
    durable_name: hubConsumer(hub),
    filter_subject: subjects.allEvents,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    max_ack_pending: 256,
  });
}

/** A node's durable reader of its own commands (the only consumer its permissions let it make). */
export async function ensureNodeConsumer(nc: NatsConnection, node: string): Promise<void> {
  const jsm = await jetstreamManager(nc, { checkAPI: false });
  await jsm.consumers.add(COMMANDS_STREAM, {
    durable_name: nodeConsumer(node),
    filter_subject: subjects.nodeCommands(node),
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    max_ack_pending: 64,
  });
}

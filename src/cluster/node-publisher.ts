import { randomBytes } from 'node:crypto';
import type { JetStreamClient } from '@nats-io/jetstream';
import type { Clock } from '../core/clock.js';
import { SharedStoreChanges } from '../sessions/store-watcher.js';
import type { ClusterStore, PromptSnapshot, SessionSnapshot } from '../store/cluster-store.js';
import type { PromptRecord } from '../store/prompt-store.js';
import type { SessionRecord } from '../store/session-store.js';
import type { Store } from '../store/store.js';
import { subjects } from './names.js';
import { SyncLoop } from './sync-loop.js';
import { encode, type HelloEvent } from './wire.js';

export interface NodePublisherOptions {
  node: string;
  /** A connection of its own to the node's store: it notices every other connection's commits. */
  store: Store;
  cluster: ClusterStore;
  js: JetStreamClient;
  clock: Clock;
  hostname: string;
  log: (line: string) => void;
  /**
   * The last message before this serve started any session: a first join says what happens from there on.
   * Taken when serve starts, not when it joins: the sessions it starts meanwhile (a `startup` repository, while
   * the bus and the agents' discovery are slow) have said things the hubs must hear.
   */
  firstJoinAfterMessage?: number;
}

const PROMPTS = 'node:prompts';
const MESSAGES = 'node:messages';

/**
 * Tells the hubs what happens on this node, from its store (the truth): its sessions, what they say, and
 * their prompts as they change, in that order, each acknowledged by JetStream before the position moves on.
 * A publish that fails (the bus is away) is tried again, so nothing is lost; one that landed although its
 * acknowledgement did not is kept once by its message id.
 */
export class NodePublisher {
  private readonly loop: SyncLoop;
  private readonly sessionsSent = new Map<string, string>();
  /** Sessions this process has said anything of (their later messages and prompts need no introduction). */
  private readonly said = new Set<string>();
  private readonly promptsSent = new Map<string, { json: string; updatedAt: number }>();
  private firstSync = true;
  private unwatch: (() => void) | null = null;
  /** Publishes of this process are told apart from a previous one's (their ids must not collide). */
  private readonly boot = randomBytes(6).toString('hex');
  private published = 0;

  constructor(private readonly options: NodePublisherOptions) {
    this.loop = new SyncLoop(
      () => this.sync(),
      options.clock,
      (error) => options.log(`cluster: could not publish (will retry): ${error.message}`),
    );
  }

  start(): void {
    const { store, cluster } = this.options;
    // A node joining the cluster says what happens from its start on, and every prompt still waiting.
    if (cluster.getCursor(MESSAGES) === null)
      cluster.setCursor(MESSAGES, this.options.firstJoinAfterMessage ?? store.channels.lastMessageId());
    if (cluster.getCursor(PROMPTS) === null) {
      const open = store.prompts.open().map((p) => p.updatedAt);
      cluster.setCursor(PROMPTS, Math.min(this.options.clock.now(), ...open));
    }
    this.unwatch = SharedStoreChanges.for(store, this.options.clock).subscribe(() => this.loop.poke());
    this.loop.poke();
  }

  /** Something changed that this connection wrote itself (its own commits are not noticed), or the bus is back. */
  poke(): void {
    this.loop.poke();
  }

  settled(): Promise<void> {
    return this.loop.settled();
  }

  /** Says what changed last (sessions that just ended) before it stops. */
  async stop(): Promise<void> {
    this.unwatch?.();
    this.loop.poke();
    await this.loop.settled();
    await this.loop.stop();
  }

  async hello(info: HelloEvent): Promise<void> {
    const id = `${this.options.node}:h:${randomBytes(8).toString('hex')}`;
    await this.options.js.publish(subjects.event(this.options.node, 'hello'), encode(info), { msgID: id });
  }

  private async sync(): Promise<void> {
    await this.syncSessions();
    await this.syncMessages();
    await this.syncPrompts();
  }

  private async syncSessions(): Promise<void> {
    const { store } = this.options;
    const records = new Map<string, SessionRecord>();
    for (const record of store.sessions.list(this.firstSync ? { all: true } : {}))
      records.set(record.id, record);
    // Those that were running when last said: their end is news too.
    for (const id of this.sessionsSent.keys()) {
      if (records.has(id)) continue;
      const record = store.sessions.get(id);
      if (record) records.set(id, record);
    }
    for (const record of [...records.values()].sort((a, b) => a.startedAt - b.startedAt))
      await this.publishSession(record);
    this.firstSync = false;
  }

  private async publishSession(record: SessionRecord): Promise<void> {
    if (record.node !== null) return; // never a mirror: a node speaks of its own sessions only
    const snapshot = this.sessionSnapshot(record);
    const json = JSON.stringify(snapshot);
    if (this.sessionsSent.get(record.id) === json) return;
    await this.publish(subjects.event(this.options.node, 'session', record.id), snapshot, this.nextId());
    this.said.add(record.id);
    if (record.status === 'active') this.sessionsSent.set(record.id, json);
    else this.sessionsSent.delete(record.id);
  }

  /**
   * A session is said before anything of it (a message, a prompt): one made while a sync ran, or an old one
   * whose prompt changed, would otherwise reach the hubs after what it says.
   */
  private async sayTheSessionFirst(sessionId: string): Promise<void> {
    if (this.said.has(sessionId)) return;
    const record = this.options.store.sessions.get(sessionId);
    if (record) await this.publishSession(record);
  }

  private async syncMessages(): Promise<void> {
    const { store, cluster, node } = this.options;
    for (;;) {
      const messages = store.channels.messagesAfter(cluster.getCursor(MESSAGES) ?? 0);
      if (messages.length === 0) return;
      for (const message of messages) {
        await this.sayTheSessionFirst(message.sessionId);
        const subject = subjects.event(node, 'message', message.sessionId);
        const { id, kind, text, createdAt } = message;
        await this.publish(subject, { id, kind, text, createdAt }, `${node}:m:${id}`);
        cluster.setCursor(MESSAGES, id);
      }
    }
  }

  private async syncPrompts(): Promise<void> {
    const { cluster, node } = this.options;
    const since = cluster.getCursor(PROMPTS) ?? 0;
    for (const record of cluster.promptsChangedSince(since)) {
      const snapshot = promptSnapshot(record);
      const json = JSON.stringify(snapshot);
      if (this.promptsSent.get(record.id)?.json === json) continue;
      await this.sayTheSessionFirst(record.sessionId);
      await this.publish(subjects.event(node, 'prompt', record.sessionId), snapshot, this.nextId());
      this.promptsSent.set(record.id, { json, updatedAt: record.updatedAt });
      cluster.setCursor(PROMPTS, record.updatedAt);
    }
    // Only those changed at the cursor's millisecond can come round again.
    const cursor = cluster.getCursor(PROMPTS) ?? 0;
    for (const [id, sent] of this.promptsSent) if (sent.updatedAt < cursor) this.promptsSent.delete(id);
  }

  private sessionSnapshot(record: SessionRecord): SessionSnapshot {
    return {
      id: record.id,
      agent: record.agent,
      cwd: record.cwd,
      label: record.label,
      hostname: this.options.hostname,
      startedAt: record.startedAt,
      endedAt: record.endedAt,
      exitCode: record.exitCode,
      status: record.status,
      agentSessionId: record.agentSessionId,
      usage: record.usage,
      answerKey: record.answerKey,
      name: record.name,
      firstPrompt: record.firstPrompt,
    };
  }

  private nextId(): string {
    return `${this.options.node}:${this.boot}:${this.published}`;
  }

  private async publish(subject: string, payload: unknown, msgID: string): Promise<void> {
    await this.options.js.publish(subject, encode(payload), { msgID, timeout: 10_000 });
    this.published++;
  }
}

/**
 * A prompt as the hubs may know it: a sealed answer's box never leaves the node, nor does the key its screen is
 * known by (it means something only to this machine's session host).
 */
function promptSnapshot(record: PromptRecord): PromptSnapshot {
  const { screenKey: _screenKey, ...shared } = record;
  const reply = record.reply?.type === 'sealed' ? { ...record.reply, box: null } : record.reply;
  return { ...shared, reply };
}

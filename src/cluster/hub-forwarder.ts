import type { Clock } from '../core/clock.js';
import { SharedStoreChanges } from '../sessions/store-watcher.js';
import type { ClusterStore } from '../store/cluster-store.js';
import type { Store } from '../store/store.js';
import { subjects } from './names.js';
import type { OutboxSender } from './outbox.js';
import { SyncLoop } from './sync-loop.js';
import type { AnswerCommand, InputCommand } from './wire.js';

export interface HubForwarderOptions {
  hub: string;
  /** The hub's store on the cluster's own connection: it notices what the relays and the web UI commit. */
  store: Store;
  cluster: ClusterStore;
  outbox: OutboxSender;
  clock: Clock;
  log: (line: string) => void;
}

/**
 * Hands what people do on the hub about a node's session to that node: an answer to a mirrored prompt (the
 * relay or the web UI checked it against the mirror, and recorded it as a request there: the node decides),
 * a cancel, and text typed for the session. Each goes through the outbox under an id of its own, so it
 * reaches the node once, even when the node is away (JetStream keeps it until the node takes it).
 */
export class HubForwarder {
  private readonly loop: SyncLoop;
  private unwatch: (() => void) | null = null;

  constructor(private readonly options: HubForwarderOptions) {
    this.loop = new SyncLoop(
      async () => this.sync(),
      options.clock,
      (error) => options.log(`cluster: could not forward: ${error.message}`),
    );
  }

  start(): void {
    this.unwatch = SharedStoreChanges.for(this.options.store, this.options.clock).subscribe(() =>
      this.loop.poke(),
    );
    this.loop.poke();
  }

  poke(): void {
    this.loop.poke();
  }

  settled(): Promise<void> {
    return this.loop.settled();
  }

  async stop(): Promise<void> {
    this.unwatch?.();
    await this.loop.stop();
  }

  private sync(): void {
    const { cluster, outbox, store, hub } = this.options;
    for (const prompt of cluster.decidedHere()) {
      const requestId = `answer:${hub}:${prompt.id}:${prompt.decidedAt}`;
      const reply = prompt.status === 'canceled' ? { type: 'cancel' as const } : prompt.reply;
      if (!reply) continue;
      const command: AnswerCommand = {
        requestId,
        promptId: prompt.id,
        sessionId: prompt.sessionId,
        nonce: prompt.nonce,
        reply,
        decidedBy: prompt.decidedBy ?? 'unknown',
      };
      outbox.add({
        id: requestId,
        subject: subjects.command(prompt.node, 'answer'),
        payload: JSON.stringify(command),
      });
    }
    for (const session of cluster.mirrorsWithInput()) {
      // Taken from the hub's inputs and put in the outbox at once: text is never lost in between.
      store.db.transaction(() => {
        for (const input of store.channels.takeInputs(session.id)) {
          const requestId = `input:${hub}:${input.id}`;
          const command: InputCommand = {
            requestId,
            sessionId: session.id,
            text: input.text,
            sentBy: input.sentBy,
          };
          cluster.enqueue({
            id: requestId,
            subject: subjects.command(session.node, 'input'),
            payload: JSON.stringify(command),
          });
        }
      })();
    }
    outbox.poke();
  }
}

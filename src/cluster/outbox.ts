import type { JetStreamClient } from '@nats-io/jetstream';
import type { Clock } from '../core/clock.js';
import type { ClusterStore, OutboxEntry } from '../store/cluster-store.js';
import { SyncLoop } from './sync-loop.js';

/**
 * Publishes what was put in the store's outbox, oldest first, each under its own id (a publish repeated after a
 * lost acknowledgement is one message), and marks it sent once JetStream has it. What could not be sent stays
 * for the next try: after a backoff, or when the connection comes back.
 */
export class OutboxSender {
  private readonly loop: SyncLoop;

  constructor(
    private readonly cluster: ClusterStore,
    private readonly js: JetStreamClient,
    clock: Clock,
    log: (line: string) => void,
  ) {
    this.loop = new SyncLoop(
      () => this.send(),
      clock,
      (error) => log(`cluster: could not send (will retry): ${error.message}`),
    );
  }

  /** Puts an entry in the outbox and sends it (false when an entry with its id was there already). */
  add(entry: OutboxEntry): boolean {
    const added = this.cluster.enqueue(entry);
    this.loop.poke();
    return added;
  }

  poke(): void {
    this.loop.poke();
  }

  settled(): Promise<void> {
    return this.loop.settled();
  }

  /** Sends what waits (once) before it stops. */
  async stop(): Promise<void> {
    this.loop.poke();
    await this.loop.settled();
    await this.loop.stop();
  }

  private async send(): Promise<void> {
    for (const entry of this.cluster.unsent()) {
      await this.js.publish(entry.subject, new TextEncoder().encode(entry.payload), {
        msgID: entry.id,
        timeout: 10_000,
      });
      this.cluster.markSent(entry.id);
    }
  }
}

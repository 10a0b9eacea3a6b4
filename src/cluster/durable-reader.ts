import type { Consumer, ConsumerMessages, JsMsg } from '@nats-io/jetstream';
import { Backoff } from '../core/backoff.js';
import type { Clock, TimerHandle } from '../core/clock.js';

/**
 * Reads a durable JetStream consumer in order, one message at a time: each is handled, then acknowledged (a
 * message whose handling threw is not, and comes again). When the consumer cannot be had (its stream is not
 * made yet, the bus is away) it tries again after a backoff, 1 s doubling to 60 s; stopping ends at once.
 */
export class DurableReader {
  private messages: ConsumerMessages | null = null;
  private stopped = false;
  private running: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private timer: TimerHandle | null = null;
  private readonly backoff = new Backoff();

  constructor(
    private readonly open: () => Promise<Consumer>,
    private readonly handle: (message: JsMsg) => Promise<void> | void,
    private readonly clock: Clock,
    private readonly onError: (error: Error) => void,
  ) {}

  start(): void {
    this.running ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    this.wake?.();
    await this.messages?.close();
    await this.running;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        const consumer = await this.open();
        if (this.stopped) return;
        const messages = await consumer.consume({ max_messages: 64 });
        this.messages = messages;
        if (this.stopped) {
          await messages.close();
          return;
        }
        this.backoff.reset();
        for await (const message of messages) {
          await this.handle(message);
          message.ack();
        }
      } catch (error) {
        if (this.stopped) return;
        this.onError(error instanceof Error ? error : new Error(String(error)));
        await this.pause(this.backoff.next());
      }
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
      this.timer = this.clock.after(ms, resolve);
    });
  }
}

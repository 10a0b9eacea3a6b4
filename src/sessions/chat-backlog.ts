import type { ChatTarget } from '../channels/contract.js';

/** Tries of one message before it is given up (a chat that refuses it for good must not hold the rest). */
export const MAX_SEND_TRIES = 6;
/** Messages kept for one chat while its sends fail; the oldest go first beyond this. */
export const MAX_HELD_PER_CHAT = 500;

interface Held<T> {
  chat: ChatTarget;
  items: T[];
  /** Failed tries of the first item. */
  failures: number;
  /** Not tried again before this time. */
  dueAt: number;
}

/** What a send of a held item came to. */
export type SendResult = 'sent' | 'failed';

export interface ChatBacklogOptions<T> {
  /** A chat whose send failed is tried again after this long. */
  retryMs: number;
  now: () => number;
  send: (chat: ChatTarget, item: T) => Promise<SendResult>;
  /** A message given up: refused `MAX_SEND_TRIES` times, or pushed out by newer ones. */
  gaveUp: (item: T, chat: ChatTarget, why: 'failed' | 'overflow') => void;
}

/**
 * Messages a chat has not taken yet because a send failed: each chat's are tried again in their order, and
 * anything newer for that chat waits behind them, so a network blip neither loses a message nor reorders one.
 * A message failing `MAX_SEND_TRIES` times is given up and the next one goes on. Kept in memory: held
 * messages last as long as the process that relays them.
 */
export class ChatBacklog<T> {
  private readonly held = new Map<string, Held<T>>();

  constructor(private readonly options: ChatBacklogOptions<T>) {}

  /** Whether `chat` has messages waiting: a newer one must queue behind them. */
  holds(chat: ChatTarget): boolean {
    return this.held.has(keyOf(chat));
  }

  /** Keeps `item` for `chat`; `failed`: its send has just failed (the first try of a new backlog). */
  hold(chat: ChatTarget, item: T, failed = false): void {
    const key = keyOf(chat);
    let held = this.held.get(key);
    if (!held) {
      held = { chat, items: [], failures: 0, dueAt: 0 };
      this.held.set(key, held);
    }
    held.items.push(item);
    if (failed && held.items.length === 1) this.failed(held);
    while (held.items.length > MAX_HELD_PER_CHAT) this.options.gaveUp(held.items.shift()!, chat, 'overflow');
  }

  /** The first time a held message may be tried again, or null when nothing is held. */
  get nextDue(): number | null {
    let next: number | null = null;
    for (const held of this.held.values()) next = next === null ? held.dueAt : Math.min(next, held.dueAt);
    return next;
  }

  /** Try everything held again now (the channel reconnected). */
  dueNow(): void {
    for (const held of this.held.values()) held.dueAt = 0;
  }

  /** Sends what is due, each chat in order, until a send fails; a failing chat waits `retryMs`. */
  async flush(): Promise<void> {
    for (const held of [...this.held.values()]) {
      if (held.dueAt <= this.options.now()) await this.sendHeld(held);
    }
  }

  /** Sends what `chat` holds now, due or not: something newer (a prompt) is about to go after it. */
  async flushChat(chat: ChatTarget): Promise<void> {
    const held = this.held.get(keyOf(chat));
    if (held) await this.sendHeld(held);
  }

  private async sendHeld(held: Held<T>): Promise<void> {
    while (held.items.length > 0) {
      if ((await this.options.send(held.chat, held.items[0]!)) === 'sent') {
        held.items.shift();
        held.failures = 0;
        continue;
      }
      this.failed(held);
      if (held.failures < MAX_SEND_TRIES) break;
      this.options.gaveUp(held.items.shift()!, held.chat, 'failed');
      held.failures = 0;
    }
    if (held.items.length === 0) this.held.delete(keyOf(held.chat));
  }

  private failed(held: Held<T>): void {
    held.failures++;
    held.dueAt = this.options.now() + this.options.retryMs;
  }
}

function keyOf(chat: ChatTarget): string {
  return `${chat.chatId}\u0000${chat.threadId ?? ''}`;
}

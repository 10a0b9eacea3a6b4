// The update queue behind getUpdates: offsets confirm (drop) older updates, one long poll at a time.
import type { TgUpdate } from './types.js';
import { ApiError, optInt, type Params } from './wire.js';

/** Update types Telegram sends when allowed_updates is empty (all but these three). */
const OPT_IN_TYPES = new Set(['chat_member', 'message_reaction', 'message_reaction_count']);

interface Waiter {
  limit: number;
  resolve: (updates: TgUpdate[]) => void;
  reject: (error: ApiError) => void;
  timer: NodeJS.Timeout;
}

export interface Poll {
  result: Promise<TgUpdate[]>;
  /** The client went away: forget the poll (its answer would go nowhere). */
  cancel: () => void;
}

function typeOf(update: TgUpdate): string {
  return Object.keys(update).find((key) => key !== 'update_id') ?? '';
}

export class UpdateQueue {
  private queue: TgUpdate[] = [];
  private nextId = 500_000_001;
  /** undefined = the default set; Telegram remembers the last non-omitted allowed_updates. */
  private allowed: Set<string> | undefined;
  private waiter: Waiter | undefined;
  /** Every update ever injected, confirmed or not. */
  readonly history: TgUpdate[] = [];

  push(body: Omit<TgUpdate, 'update_id'>): TgUpdate {
    const update = { update_id: this.nextId++, ...body } as TgUpdate;
    this.queue.push(update);
    this.history.push(update);
    this.wake();
    return update;
  }

  /** Updates not yet confirmed by an offset. */
  pending(): TgUpdate[] {
    return [...this.queue];
  }

  /** deleteWebhook({ drop_pending_updates: true }). */
  drop(): void {
    this.queue = [];
  }

  isPolling(): boolean {
    return this.waiter !== undefined;
  }

  poll(params: Params): Poll {
    this.confirm(optInt(params, 'offset'));
    const allowed = params.allowed_updates;
    if (Array.isArray(allowed))
      this.allowed = allowed.length === 0 ? undefined : new Set(allowed.map((type) => String(type)));
    const limit = Math.min(100, Math.max(1, optInt(params, 'limit') ?? 100));
    const timeoutSeconds = Math.max(0, Number(params.timeout ?? 0) || 0);
    this.terminate(
      new ApiError(
        409,
        'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
      ),
    );
    const ready = this.take(limit);
    if (ready.length > 0 || timeoutSeconds === 0) return { result: Promise.resolve(ready), cancel: () => {} };
    let waiter: Waiter | undefined;
    const result = new Promise<TgUpdate[]>((resolve, reject) => {
      const finish = (): void => {
        clearTimeout(waiter?.timer);
        if (this.waiter === waiter) this.waiter = undefined;
      };
      waiter = {
        limit,
        resolve: (updates) => {
          finish();
          resolve(updates);
        },
        reject: (error) => {
          finish();
          reject(error);
        },
        timer: setTimeout(() => waiter?.resolve([]), timeoutSeconds * 1000),
      };
      this.waiter = waiter;
    });
    return { result, cancel: () => waiter?.resolve([]) };
  }

  /** Ends a pending long poll with an empty answer (close()) or an error. */
  terminate(error?: ApiError): void {
    if (!this.waiter) return;
    if (error) this.waiter.reject(error);
    else this.waiter.resolve([]);
  }

  private confirm(offset: number | undefined): void {
    if (offset === undefined || offset === 0) return;
    this.queue = offset < 0 ? this.queue.slice(offset) : this.queue.filter((u) => u.update_id >= offset);
  }

  private take(limit: number): TgUpdate[] {
    const isAllowed = (update: TgUpdate): boolean =>
      this.allowed ? this.allowed.has(typeOf(update)) : !OPT_IN_TYPES.has(typeOf(update));
    // Updates of types not asked for are never delivered: Telegram drops them.
    this.queue = this.queue.filter(isAllowed);
    return this.queue.slice(0, limit);
  }

  private wake(): void {
    if (!this.waiter) return;
    const ready = this.take(this.waiter.limit);
    if (ready.length > 0) this.waiter.resolve(ready);
  }
}

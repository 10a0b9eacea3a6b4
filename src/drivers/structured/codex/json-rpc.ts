import type { JsonLines } from '../json-lines.js';

/** An error the other side answered a request with. */
export class JsonRpcError extends Error {
  override name = 'JsonRpcError';
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export interface JsonRpcHandlers {
  /** A request from the other side; its result (or a thrown error) is the answer. */
  request(method: string, params: unknown, id: string | number): Promise<unknown>;
  notification(method: string, params: unknown): void;
}

/**
 * JSON-RPC requests, responses and notifications over newline-delimited JSON, both ways. Codex's app-server
 * leaves out the `jsonrpc: "2.0"` member (so the ACP SDK and JSON-RPC 2.0 libraries refuse its messages):
 * this peer neither sends nor requires it.
 */
export class JsonRpcPeer {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();

  constructor(
    private readonly lines: JsonLines,
    private readonly handlers: JsonRpcHandlers,
  ) {}

  request<T>(method: string, params: unknown): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: (value) => resolve(value as T), reject });
      if (!this.lines.send({ id, method, params })) {
        this.pending.delete(id);
        reject(new Error('the agent is not reading its input'));
      }
    });
  }

  notify(method: string, params?: unknown): void {
    this.lines.send(params === undefined ? { method } : { method, params });
  }

  /** Every request still waiting fails (the agent exited). */
  close(reason: string): void {
    for (const waiting of this.pending.values()) waiting.reject(new Error(reason));
    this.pending.clear();
  }

  /** One message from the other side. */
  receive(message: Record<string, unknown>): void {
    const { id, method } = message;
    const hasId = typeof id === 'number' || typeof id === 'string';
    if (typeof method === 'string' && hasId) return void this.answer(id, method, message.params);
    if (typeof method === 'string') return this.handlers.notification(method, message.params);
    if (typeof id !== 'number') return;
    const waiting = this.pending.get(id);
    if (!waiting) return;
    this.pending.delete(id);
    const error = message.error as { code?: unknown; message?: unknown } | undefined;
    if (error)
      waiting.reject(new JsonRpcError(Number(error.code ?? -32603), String(error.message ?? 'error')));
    else waiting.resolve(message.result);
  }

  private async answer(id: string | number, method: string, params: unknown): Promise<void> {
    try {
      const result = await this.handlers.request(method, params, id);
      this.lines.send({ id, result });
    } catch (error) {
      const code = error instanceof JsonRpcError ? error.code : -32603;
      this.lines.send({ id, error: { code, message: (error as Error).message } });
    }
  }
}

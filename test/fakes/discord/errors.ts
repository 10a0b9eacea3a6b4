// Discord's error replies: `{ message, code, errors? }`, with the nested `_errors` shape of 50035.
import type { Json } from './types.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly errors?: Json,
  ) {
    super(message);
  }

  body(): Json {
    return { message: this.message, code: this.code, ...(this.errors ? { errors: this.errors } : {}) };
  }
}

export const unknownChannel = (): ApiError => new ApiError(404, 10003, 'Unknown Channel');
export const unknownMessage = (): ApiError => new ApiError(404, 10008, 'Unknown Message');
export const unknownUser = (): ApiError => new ApiError(404, 10013, 'Unknown User');
export const unknownWebhook = (): ApiError => new ApiError(404, 10015, 'Unknown Webhook');
export const unknownInteraction = (): ApiError => new ApiError(404, 10062, 'Unknown interaction');
export const alreadyAcknowledged = (): ApiError =>
  new ApiError(400, 40060, 'Interaction has already been acknowledged.');
export const emptyMessage = (): ApiError => new ApiError(400, 50006, 'Cannot send an empty message');
export const notAuthor = (): ApiError =>
  new ApiError(403, 50005, 'Cannot edit a message authored by another user');
export const tooLarge = (): ApiError => new ApiError(413, 40005, 'Request entity too large');

/** Collects field errors under their paths; `throwIfAny` raises one 400 / 50035 "Invalid Form Body". */
export class FormErrors {
  private readonly errors: Json = {};
  private count = 0;

  add(path: Array<string | number>, code: string, message: string): void {
    let node = this.errors;
    for (const key of path) {
      const next = (node[String(key)] ?? {}) as Json;
      node[String(key)] = next;
      node = next;
    }
    const list = (node['_errors'] ?? []) as Json[];
    list.push({ code, message });
    node['_errors'] = list;
    this.count += 1;
  }

  /** A string longer than `max` code points → BASE_TYPE_MAX_LENGTH, Discord's wording. */
  maxLength(path: Array<string | number>, value: unknown, max: number): void {
    if (typeof value === 'string' && value.length > max && [...value].length > max)
      this.add(path, 'BASE_TYPE_MAX_LENGTH', `Must be ${max} or fewer in length.`);
  }

  throwIfAny(): void {
    if (this.count > 0) throw new ApiError(400, 50035, 'Invalid Form Body', this.errors);
  }
}

/**
 * The prompt state machine (seed 004 §6). The store applies each transition as one guarded UPDATE; this module
 * says which transitions exist. "resolved" straight from awaiting_reply means it was answered at the agent's
 * own terminal, where no bytes need injecting.
 */
export const PROMPT_STATUSES = [
  'created',
  'routed',
  'awaiting_reply',
  'reply_received',
  'injected',
  'resolved',
  'expired',
  'canceled',
  'failed',
] as const;

export type PromptStatus = (typeof PROMPT_STATUSES)[number];

export const TRANSITIONS: Readonly<Record<PromptStatus, readonly PromptStatus[]>> = {
  created: ['routed', 'expired', 'canceled', 'failed', 'resolved'],
  routed: ['awaiting_reply', 'reply_received', 'expired', 'canceled', 'failed', 'resolved'],
  awaiting_reply: ['reply_received', 'expired', 'canceled', 'failed', 'resolved'],
  reply_received: ['injected', 'failed'],
  injected: ['resolved', 'failed'],
  expired: ['injected', 'failed'],
  resolved: [],
  canceled: [],
  failed: [],
};

/** Waiting for a person: these can still be answered. */
export const OPEN_STATUSES: readonly PromptStatus[] = ['created', 'routed', 'awaiting_reply'];

export function canTransition(from: PromptStatus, to: PromptStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/** Statuses from which `to` can be reached: the guard list of a transition's UPDATE. */
export function sourcesOf(to: PromptStatus): PromptStatus[] {
  return PROMPT_STATUSES.filter((from) => canTransition(from, to));
}

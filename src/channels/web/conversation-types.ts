import type { AgentUsage, PromptKind } from '../../core/events.js';

/**
 * A structured session as a conversation (API.md): what the agent said, the tools it ran, the diffs it made,
 * its plans, what people sent it. Plain data, shared with the browser app (no Node types here). Every text is
 * the agent's or a person's words: pages show it as text, never as HTML.
 */

/** A plan step's progress, in the agents' own words (ACP, Codex and Claude's TodoWrite use these three). */
export type PlanStepStatus = 'pending' | 'in_progress' | 'completed';

/** How a person's message went: typed, held while a prompt waits, or taken as the waiting prompt's answer. */
export type SentOutcome = 'queued' | 'held' | 'answered';

type Entry<K extends string, T> = { id: number; at: number; kind: K } & T;

export type ConversationEntry =
  | Entry<'agent', { text: string }>
  | Entry<'person', { text: string; outcome: SentOutcome }>
  | Entry<'tool', { tool: string; text: string; status: 'running' | 'done' | 'failed' }>
  | Entry<'diff', { file: string; diff: string; proposed: boolean }>
  | Entry<'plan', { steps: Array<{ text: string; status: PlanStepStatus }> }>
  /** The agent asked something (the prompt itself is in the inbox, and inline while it waits). */
  | Entry<'prompt', { promptKind: PromptKind; text: string }>
  /** Something about the session, not the agent's words (a protocol request that failed). */
  | Entry<'note', { text: string }>;

export type ConversationState = 'starting' | 'busy' | 'idle' | 'exited';

export interface ConversationExit {
  exitCode: number | null;
  signal: string | null;
}

export interface ConversationSnapshot {
  sessionId: string;
  /** Oldest first; at most the newest few hundred (`dropped` says how many older ones are no longer kept). */
  entries: ConversationEntry[];
  dropped: number;
  state: ConversationState;
  usage: AgentUsage | null;
  exit: ConversationExit | null;
  /** A message from this page reaches it (it runs here). */
  canSend: boolean;
}

/** What changes after a snapshot: an entry added or changed (same id: replace it), the state, the end. */
export type ConversationUpdate =
  | { type: 'entry'; entry: ConversationEntry }
  | { type: 'status'; state: ConversationState; usage: AgentUsage | null }
  | { type: 'exit'; exit: ConversationExit };

/** `/ws/conversation/:id`, server → client: the snapshot first, then its updates. */
export type ConversationFrame = ({ type: 'history' } & ConversationSnapshot) | ConversationUpdate;

export interface ConversationWatch {
  snapshot: ConversationSnapshot;
  stop(): void;
}

export type MessageResult =
  { ok: true; outcome: SentOutcome; notice: string | null } | { ok: false; status: 400 | 404; error: string };

import type { DetectedPrompt } from './prompt.js';

/**
 * The one event stream every driver produces and every channel consumes (DESIGN.md "One event stream").
 * Plain data only: events cross process and network boundaries.
 */
/** Every kind of prompt, in the order lists show them. */
export const PROMPT_KINDS = [
  'permission',
  'question',
  'plan',
  'yes_no',
  'confirm_enter',
  'multiple_choice',
  'free_text',
  'unknown',
] as const;
export type PromptKind = (typeof PROMPT_KINDS)[number];

/** exact: protocol or hook; high: a pattern; medium: the child blocks on a tty read; low: silence. */
export type Confidence = 'exact' | 'high' | 'medium' | 'low';

export interface PromptChoice {
  /** What the agent shows, numbered from 1 as the agent numbers it. */
  number: number;
  label: string;
  description?: string;
  /** A box of a multi-select question: several may be ticked in one answer ("1, 3"). */
  checkbox?: true;
}

export interface ExitInfo {
  exitCode: number | null;
  signal: string | null;
  /** Why agent-bridge ended it, when it did (e.g. the spawn watchdog). */
  reason?: string;
}

/** One of the agent's plan rate-limit windows: how much is used, and when it resets (Unix ms) when known. */
export interface RateLimitWindow {
  usedPercent: number;
  resetsAt?: number;
}

/** What the agent reports about itself (Claude Code's statusLine): its model, context use, cost, plan limits. */
export interface AgentUsage {
  /** For people, e.g. "Opus 4.8 (1M context)". */
  model?: string;
  /** How full the context window is, 0–100. */
  contextPercent?: number;
  /** The context window's size in tokens (to turn a token count into contextPercent). */
  contextWindow?: number;
  costUsd?: number;
  /** The plan's five-hour window. */
  session?: RateLimitWindow;
  /** The plan's seven-day window. */
  weekly?: RateLimitWindow;
}

export type AgentEvent =
  | { type: 'output'; data: Uint8Array }
  | { type: 'message'; text: string; source: 'protocol' | 'hook' | 'screen' }
  | { type: 'activity'; text: string; tool?: string; phase: 'start' | 'end' | 'progress' }
  /** The agent waits for a person. Raised once per prompt; `prompt_gone` when it left the screen unanswered by us. */
  | { type: 'prompt'; prompt: DetectedPrompt }
  | { type: 'prompt_gone'; key: string }
  /** `usage` comes with what the agent reports about itself; the latest report holds. */
  | { type: 'status'; state?: 'busy' | 'idle' | 'starting'; title?: string; usage?: AgentUsage }
  | { type: 'exit'; exit: ExitInfo };

export type AgentEventListener = (event: AgentEvent) => void;

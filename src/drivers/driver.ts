import type { AgentEventListener, ExitInfo } from '../core/events.js';
import type { DetectedPrompt, ReplyAction } from '../core/prompt.js';

/** How agent-bridge talks to an agent: its screen (a PTY), or its own protocol. */
export type DriverKind = 'terminal' | 'structured';

/**
 * One running agent, as every driver presents it (DESIGN.md "One event stream"): the terminal driver and each
 * structured driver (ACP, Claude stream-json, Codex app-server) implement it, so sessions, the prompt
 * coordinator, the store and the channels do not care which one runs.
 */
export interface AgentDriver {
  readonly kind: DriverKind;
  /** The agent's process (the leader of its own process group). */
  readonly pid: number;
  readonly exited: Promise<ExitInfo>;
  readonly running: boolean;
  on(listener: AgentEventListener): () => void;
  /** A person's message for the agent. */
  sendText(text: string): Promise<void>;
  /**
   * Answers a prompt this driver raised (its `key`). Returns what was sent, for the audit trail; throws when
   * the prompt is no longer asked (nothing was sent). `decidedBy` names who answered, for the agent's ears.
   * `once` (the prompt's id) makes it idempotent where the driver can: asked again, it sends nothing twice.
   */
  answer(
    prompt: Pick<DetectedPrompt, 'key' | 'safeDefault'>,
    action: ReplyAction,
    decidedBy?: string,
    once?: string,
  ): Promise<string>;
  /** Stops what the agent is doing now (Ctrl-C, or the protocol's cancel); the session goes on. */
  interrupt(): void;
  /** Ends the agent and everything it started. */
  stop(): Promise<ExitInfo>;
}

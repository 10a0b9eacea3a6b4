/** The shapes the agent-bridge web API answers with (see src/channels/web/API.md). */

export interface ToolCard {
  id: string;
  name: string;
  description: string;
  found: boolean;
  path: string | null;
  installHint: string;
  canSkipPermissions: boolean;
  canResume: boolean;
}

export interface AppConfig {
  host: string;
  version: string;
  cwd: string;
  agents: ToolCard[];
}

export type SessionState = 'busy' | 'waiting' | 'idle' | 'exited';

export interface Session {
  id: string;
  agent: string;
  label: string;
  cwd: string;
  host: string;
  state: SessionState;
  startedAt: string;
  pendingPrompts: number;
  /** A live terminal can be attached. */
  live: boolean;
  recording: string | null;
}

export interface PromptChoice {
  number: number;
  label: string;
  description?: string;
}

export type PromptKind =
  | 'permission'
  | 'question'
  | 'plan'
  | 'yes_no'
  | 'confirm_enter'
  | 'multiple_choice'
  | 'free_text'
  | 'unknown';

export interface Prompt {
  id: string;
  sessionId: string;
  kind: PromptKind;
  confidence: 'exact' | 'high' | 'medium' | 'low';
  excerpt: string;
  detail: string;
  choices: PromptChoice[];
  allowForSessionChoice: number | null;
  /** What applies on expiry, for people ("3. No", "enter"); null when nothing is typed. */
  safeDefault: string | null;
  /** Epoch milliseconds. */
  expiresAt: number;
  origin: { host: string; agent: string; label: string; cwd: string };
}

export interface Recording {
  id: string;
  startedAt: string | null;
  durationSeconds: number;
  bytes: number;
  command: string | null;
  title: string | null;
}

export type EventFrame = { type: 'sessions' } | { type: 'prompts' } | { type: 'prompt'; prompt: Prompt };

export type TerminalFrame =
  | { type: 'hello'; cols: number; rows: number }
  | { type: 'screen'; data: string }
  | { type: 'exit'; exitCode: number | null; signal: string | null };

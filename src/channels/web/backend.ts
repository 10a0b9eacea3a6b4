import type { PromptView } from '../view-types.js';

/** What the web channel needs from the rest of agent-bridge; the sessions layer implements it. */

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

export interface WebSession {
  id: string;
  agent: string;
  label: string;
  cwd: string;
  host: string;
  state: 'busy' | 'waiting' | 'idle' | 'exited';
  startedAt: string;
  pendingPrompts: number;
  /** A live terminal can be attached (the session runs in this process). */
  live: boolean;
  recording: string | null;
}

export interface WebRecording {
  id: string;
  startedAt: string | null;
  durationSeconds: number;
  bytes: number;
  command: string | null;
  title: string | null;
}

/** A viewer attached to a live terminal. */
export interface TerminalViewer {
  output(data: Uint8Array): void;
  exit(info: { exitCode: number | null; signal: string | null }): void;
}

export interface TerminalAttachment {
  cols: number;
  rows: number;
  /** ANSI that redraws the current screen in a fresh terminal. */
  screen: string;
  /** The same, later: for a viewer that fell behind and skipped output. */
  redraw(): Promise<string>;
  input(data: string): void;
  resize(cols: number, rows: number): void;
  detach(): void;
}

export type AnswerResult =
  { ok: true; summary: string } | { ok: false; status: 400 | 404 | 409; error: string };

export type WebEvent =
  { type: 'sessions' } | { type: 'prompts' } | { type: 'prompt'; prompt: PromptView & { id: string } };

export interface WebBackend {
  host: string;
  version: string;
  cwd: string;
  tools(): Promise<ToolCard[]>;
  sessions(): WebSession[];
  start(request: { agent: string; cwd: string; args?: string[] }, who: string): Promise<WebSession>;
  stop(id: string): Promise<boolean>;
  restart(id: string, who: string): Promise<WebSession | null>;
  prompts(): Array<PromptView & { id: string }>;
  answer(promptId: string, answer: string, who: string): AnswerResult;
  recordings(): Promise<WebRecording[]>;
  /** The recording's file path, only for an id that names a recording in the recordings folder. */
  recordingFile(id: string): string | null;
  attach(sessionId: string, viewer: TerminalViewer): Promise<TerminalAttachment | null>;
  onEvent(listener: (event: WebEvent) => void): () => void;
  /** A refused access, or a burst of them with their count (refusal-audit.ts), for the audit log. */
  unauthorized(details: Record<string, string | number>): void;
}

/**
 * The shapes the agent-bridge web API answers with (see src/channels/web/API.md): the server's own types,
 * imported as types only (nothing of the server reaches the bundle), so the two cannot drift apart.
 */
import type { ToolCard, WebPrompt, WebRecording, WebSession } from '../../src/channels/web/backend.js';
export type {
  FolderChanges,
  FolderEntry,
  FolderListing,
  FolderSuggestions,
  PickerFolder,
  SubfolderListing,
  TextFile,
} from '../../src/channels/web/file-views.js';

export type { ToolCard };
export type {
  ConversationEntry,
  ConversationFrame,
  ConversationSnapshot,
  ConversationState,
  MessageResult,
} from '../../src/channels/web/conversation-types.js';
export type { AgentUsage } from '../../src/core/events.js';
export type { PromptChoice, PromptKind } from '../../src/core/events.js';
export type Session = WebSession;
export type SessionState = WebSession['state'];
export type Prompt = WebPrompt;
export type Recording = WebRecording;

export interface AppConfig {
  host: string;
  version: string;
  cwd: string;
  agents: ToolCard[];
  /** A cluster hub's nodes: machines sessions can be started on besides this one. */
  nodes?: ClusterNode[];
}

export interface ClusterNode {
  name: string;
  online: boolean;
  agents: string[];
  /** When it was last seen connected (ms since the epoch; null: never by this hub). */
  lastSeen?: number | null;
}

export type EventFrame = { type: 'sessions' } | { type: 'prompts' } | { type: 'prompt'; prompt: Prompt };

export type TerminalFrame =
  | { type: 'hello'; cols: number; rows: number; canType?: boolean; fixedSize?: boolean }
  | { type: 'screen'; data: string }
  | { type: 'size'; cols: number; rows: number; driving: boolean }
  | { type: 'exit'; exitCode: number | null; signal: string | null };

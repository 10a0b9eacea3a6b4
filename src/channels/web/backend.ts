import type { PromptView } from '../view-types.js';

/**
 * A prompt as the web shows it: its full id, and no nonce (the one-time value chat buttons carry is no
 * business of a page, which answers by id with its token).
 */
export type WebPrompt = Omit<PromptView, 'nonce'> & { id: string };
import type {
  ConversationSnapshot,
  ConversationUpdate,
  ConversationWatch,
  MessageResult,
} from './conversation-types.js';
import type {
  FileAnswer,
  FolderChanges,
  FolderListing,
  FolderSuggestions,
  SubfolderListing,
  TextFile,
} from './file-views.js';

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

export type SessionState = 'busy' | 'waiting' | 'idle' | 'running' | 'exited';

export interface WebSession {
  id: string;
  agent: string;
  /** For people: the name given to it, else its first prompt, else "<agent> in <folder>". */
  name: string;
  /** The name a person gave it, if any. */
  customName: string | null;
  firstPrompt: string | null;
  label: string;
  cwd: string;
  host: string;
  /**
   * `running`: busy or idle is not known (in another process, `agent-bridge run`, or a program whose screens
   * agent-bridge cannot read, a custom command).
   */
  state: SessionState;
  startedAt: string;
  /** How it ended, once it did. */
  ended: {
    status: 'completed' | 'crashed' | 'terminated';
    at: string | null;
    exitCode: number | null;
  } | null;
  pendingPrompts: number;
  /** `serve`: this server runs it; `terminal`: `agent-bridge run` does, in a terminal; `elsewhere`: neither. */
  runsIn: 'serve' | 'terminal' | 'elsewhere';
  /** Its terminal can be opened here (watched, and typed into when `canType`). */
  live: boolean;
  /**
   * It has no terminal but a conversation to show here (a structured session this server runs, or ran
   * lately): its messages, tool cards, diffs and plans; messages from the page reach it while it runs.
   */
  conversation: boolean;
  canType: boolean;
  canStop: boolean;
  /** Restart (a running session started here), or start again (an ended one: same agent, same folder). */
  canRestart: boolean;
  /** Ended, and its agent can resume the conversation: the same one when it told its id, else its latest there. */
  canResume: boolean;
  recording: string | null;
}

export interface WebRecording {
  id: string;
  /** The session it recorded, with its name (null for a recording whose session is not in the store). */
  session: { id: string; name: string; agent: string; cwd: string } | null;
  startedAt: string | null;
  durationSeconds: number;
  bytes: number;
  command: string | null;
  title: string | null;
}

/** A recording as it was when opened: its size then, and a stream of that many bytes. */
export interface RecordingStream {
  bytes: number;
  /** A Node Readable, which the server streams (typed without Node's types: the browser app reads this file). */
  stream: AsyncIterable<Uint8Array>;
}

/** A viewer attached to a live terminal. */
export interface TerminalViewer {
  output(data: Uint8Array): void;
  exit(info: { exitCode: number | null; signal: string | null }): void;
  /** The terminal's size changed, or whose size it is (`driving`: this viewer's own). */
  size?(info: { cols: number; rows: number; driving: boolean }): void;
  /** The terminal went away without an exit (the `agent-bridge run` process sharing it ended). */
  closed?(): void;
}

export interface AttachOptions {
  /** Only watch: keys and sizes from this viewer are dropped, and it never drives the size. */
  readOnly?: boolean;
}

export interface TerminalAttachment {
  cols: number;
  rows: number;
  /** Keys from this viewer reach the program (false: read-only, by choice or by the session's owner). */
  canType: boolean;
  /** No viewer sizes it: the terminal it runs in does (a session of `agent-bridge run`). */
  fixedSize?: boolean;
  /** ANSI that redraws the current screen in a fresh terminal. */
  screen: string;
  /** The same, later: for a viewer that fell behind and skipped output. */
  redraw(): Promise<string>;
  input(data: string): void;
  /** The size that fits this viewer; the terminal takes it while this viewer drives. */
  resize(cols: number, rows: number): void;
  /** Make this viewer's size the terminal's ("Fit to this screen"). */
  drive(): void;
  detach(): void;
}

/** A browser's WebSocket upgrade of `/ws/terminal/:id`: checked (Host, Origin, token), not yet answered. */
export interface TerminalUpgrade {
  /** The connection: a Node socket (typed opaquely here: the browser app reads this file). */
  socket: unknown;
  /** The bytes that came after the request's head (none, in practice: the browser waits for the answer). */
  head: Uint8Array;
  /** The handshake's own headers (`sec-websocket-*`, `upgrade`, `connection`, `host`, `origin`): no cookie. */
  headers: Record<string, string>;
  readOnly: boolean;
}

/** `queued`: the prompt's machine (`node`, a node of this hub's cluster) is away: the answer waits for it. */
export type AnswerResult =
  | { ok: true; summary: string; queued: boolean; node?: string }
  | { ok: false; status: 400 | 404 | 409; error: string };

export type WebEvent = { type: 'sessions' } | { type: 'prompts' } | { type: 'prompt'; prompt: WebPrompt };

export interface WebBackend {
  host: string;
  version: string;
  cwd: string;
  tools(): Promise<ToolCard[]>;
  sessions(): WebSession[];
  /** `node`: on that machine of the cluster (a hub's node), in a folder of its own. */
  start(
    request: { agent: string; cwd: string; args?: string[]; node?: string },
    who: string,
  ): Promise<WebSession>;
  /** The cluster's machines sessions can be started on besides this one (none for one machine alone). */
  nodes(): Promise<Array<{ name: string; online: boolean; agents: string[]; lastSeen: number | null }>>;
  stop(id: string): Promise<boolean>;
  /** A running session started here: stopped and started again; an ended one: started again. */
  restart(id: string, who: string): Promise<WebSession | null>;
  /** An ended session's conversation, resumed in a new session. */
  resume(id: string, who: string): Promise<WebSession | null>;
  /** Names a session (null: back to its first prompt); false when there is no such session. */
  rename(id: string, name: string | null): boolean;
  prompts(): WebPrompt[];
  answer(promptId: string, answer: string, who: string): AnswerResult;
  /** The newest recordings; their command lines and titles redacted. */
  recordings(): Promise<WebRecording[]>;
  /**
   * A recording's bytes, only for the exact id of a regular file in the recordings folder (never a link, a FIFO
   * or a device): 404 none by that id, 403 anything else.
   */
  recording(id: string): Promise<FileAnswer<RecordingStream>>;
  attach(
    sessionId: string,
    viewer: TerminalViewer,
    options?: AttachOptions,
  ): Promise<TerminalAttachment | null>;
  /**
   * Hands a browser's terminal to the process that holds the terminal, which answers the upgrade and serves it
   * (true); false: it is served here, through attach().
   */
  handOffTerminal?(sessionId: string, upgrade: TerminalUpgrade): boolean;
  onEvent(listener: (event: WebEvent) => void): () => void;
  /** A structured session's conversation as it is now; null when this server has none for it. */
  conversation(sessionId: string): ConversationSnapshot | null;
  /** The same, then every change of it to `listener` until `stop()`. */
  watchConversation(
    sessionId: string,
    listener: (update: ConversationUpdate) => void,
  ): ConversationWatch | null;
  /**
   * A person's message for a structured session that runs here, through the path chat text takes (never typed
   * into a waiting prompt: taken as its answer in words, or held until it is answered).
   */
  sendMessage(sessionId: string, text: string, who: string): MessageResult;
  /** Folders to start an agent in: recent ones and git repositories. */
  folders(): Promise<FolderSuggestions>;
  /** The subfolders of an absolute folder (`path` as the request gave it, unchecked). */
  subfolders(path: unknown): Promise<FileAnswer<SubfolderListing>>;
  /** A folder inside a session's folder (`path` relative, unchecked): never outside it. */
  sessionFolder(id: string, path: unknown): Promise<FileAnswer<FolderListing>>;
  /** A text file inside a session's folder (`path` relative, unchecked): never outside it. */
  sessionFile(id: string, path: unknown): Promise<FileAnswer<TextFile>>;
  /** What changed in a session's folder (git). */
  sessionChanges(id: string): Promise<FileAnswer<FolderChanges>>;
  /** A refused access, or a burst of them with their count (refusal-audit.ts), for the audit log. */
  unauthorized(details: Record<string, string | number>): void;
}

// Shapes shared by the fake Anthropic Messages API server and its scripts.

/** A content block the fake model can answer with. */
export type ReplyBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; name: string; input: Record<string, unknown>; id?: string }
  | { type: 'thinking'; thinking: string; signature?: string };

/** A failure the server should produce instead of a normal answer. */
export interface Fault {
  /** HTTP status, e.g. 500, 529 (overloaded), 400. Beware: the CLI retries 5xx/429/529 with backoff. */
  status: number;
  /** Anthropic error type, e.g. 'overloaded_error'. Defaults from the status. */
  errorType?: string;
  message?: string;
}

/** A full description of one model turn. */
export interface Reply {
  content: ReplyBlock[];
  /** Defaults to 'tool_use' when any tool_use block is present, otherwise 'end_turn'. */
  stopReason?: 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence' | 'refusal';
  /** Answer with an HTTP error instead of content. */
  fault?: Fault;
  /** Stream: close the socket after this many SSE events (simulates a dropped connection). */
  dropAfterEvents?: number;
  /** Stream: wait this long between SSE events (default 0). */
  eventDelayMs?: number;
}

/** A scripted turn: plain text, a list of blocks, or a full Reply. */
export type Turn = string | ReplyBlock[] | Reply;

/**
 * Decides the reply for one model request. Return undefined to fall back to the built-in
 * behaviours (hello / TOOL: / ASKQ / tool_result echo).
 */
export type ScriptFn = (request: ParsedRequest) => Turn | undefined;

export type Script = Turn[] | ScriptFn;

/** One block of a request message, loosely typed: the CLI sends many kinds. */
export interface RequestBlock {
  type: string;
  text?: string;
  content?: unknown;
  is_error?: boolean;
  tool_use_id?: string;
  [key: string]: unknown;
}

export interface RequestMessage {
  /** 'user' | 'assistant', and 'system' for the CLI's mid-conversation system messages. */
  role: string;
  content: string | RequestBlock[];
}

export interface ToolResult {
  toolUseId: string;
  /** The tool_result content flattened to text. */
  content: string;
  isError: boolean;
}

/** A /v1/messages request body with the facts a script needs pre-extracted. */
export interface ParsedRequest {
  model: string;
  stream: boolean;
  messages: RequestMessage[];
  /** Names of the tools offered to the model. */
  toolNames: string[];
  /** System prompt flattened to text. */
  systemText: string;
  /** Text the user typed in the last user message, with <system-reminder> sections removed. */
  lastUserText: string;
  /** Text of the last user message including system reminders. */
  lastUserRawText: string;
  /** The tool_result in the last user message, if any. */
  toolResult: ToolResult | undefined;
  /** The CLI's working directory as stated in the system prompt, if found. */
  workingDirectory: string | undefined;
  /** True for side calls (session title): no tools, haiku or structured output. They never consume script turns. */
  isSideCall: boolean;
  body: Record<string, unknown>;
}

export interface RecordedRequest {
  method: string;
  /** Path including the query string, e.g. '/v1/messages?beta=true'. */
  path: string;
  /** Lower-case header names; x-api-key, authorization and cookie are replaced by '<redacted>'. */
  headers: Record<string, string>;
  /** Parsed JSON body, or undefined when there was none or it was not JSON. */
  body: unknown;
  at: number;
}

export interface FakeAnthropic {
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Only the POST /v1/messages requests, parsed. */
  messageRequests(): ParsedRequest[];
  /** Replace the script; resets the position in a Turn[] script. */
  setScript(script: Script | undefined): void;
  close(): Promise<void>;
}

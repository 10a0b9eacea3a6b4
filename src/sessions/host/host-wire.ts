import { z } from 'zod';
import type { ScreenState } from '../../drivers/terminal/screen.js';

/**
 * The session-host protocol: what `run`, `attach` and `serve` (clients) and a session host say over its unix
 * socket, as WebSocket messages. Binary messages are terminal bytes: output (host → client) and a person's keys
 * (client → host). Text messages are JSON, one object each, checked here whole.
 *
 * Versions: the client's hello names the newest protocol it speaks, the host's welcome the one both use (the
 * lower). Each side ignores message types and fields it does not know, so a newer agent-bridge can drive an
 * older host; a host too old or too new for this agent-bridge is refused with what to do
 * (host-connection.ts). Raise PROTOCOL for a change an older peer would misread; add fields freely.
 */
export const PROTOCOL = 2;
/** The first protocol whose host reads the screen for its clients (`screens`) and writes to a spawner's terminal. */
export const SCREENS_PROTOCOL = 2;
/** The oldest protocol this agent-bridge can drive a host with. */
export const OLDEST_PROTOCOL = 1;

/** A screen with its scrollback fits; keys a person types or pastes come nowhere near. */
export const FRAME_LIMIT = 16 * 1024 * 1024;
const MAX_PARTS = 64;
const MAX_PART_CHARS = 256 * 1024;
const MAX_ID_CHARS = 128;
const MAX_HOOK_BODY_CHARS = 1024 * 1024;

const size = z.number().int().min(1).max(10_000);
const request = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const id = z.string().min(1).max(MAX_ID_CHARS);

/** Who is connecting: a person's terminal, a browser (through serve), serve itself, or a one-shot command. */
export const CLIENT_KINDS = ['terminal', 'web', 'serve', 'cli'] as const;
export type ClientKind = (typeof CLIENT_KINDS)[number];

const hello = z.object({
  type: z.literal('hello'),
  protocol: z.number().int().min(0),
  secret: z.string().min(1).max(256),
  client: z.enum(CLIENT_KINDS),
  /** Become the session's controller (prompts, answers, the store) if no one is. */
  control: z.enum(['no', 'if-free', 'wait']).default('no'),
  /** The size that fits this client, and whether it may set the terminal's (a person's terminal does). */
  size: z.object({ cols: size, rows: size }).optional(),
  drives: z.boolean().default(false),
  /** Output frames wanted (a client waiting for control wants none until it has it). */
  output: z.boolean().default(true),
  /** The controller read the finished lines up to this number: the ones after it come again. */
  linesAfter: z.number().int().min(0).optional(),
  /**
   * Protocol 2: this client reads the screen the host keeps (`settled` and `active` frames, the `screen`
   * request) instead of parsing the output itself; a controller that does gets output only if it asks.
   */
  screens: z.boolean().default(false),
  /**
   * Protocol 2: this client's terminal is the one its host was started with (the spawner's, on fd 4): the
   * host writes the output there itself, once the client says so (`terminal`), instead of over this socket.
   */
  direct: z.boolean().default(false),
});

const clientRequests = z.discriminatedUnion('type', [
  z.object({ type: z.literal('resize'), cols: size, rows: size }),
  z.object({ type: z.literal('drive') }),
  z.object({
    type: z.literal('inject'),
    req: request,
    parts: z.array(z.string().max(MAX_PART_CHARS)).max(MAX_PARTS),
    gapMs: z.number().int().min(0).max(10_000),
    settleBeforeLast: z.boolean().optional(),
    awaitRedraw: z.boolean().optional(),
    ifOutputAt: z.number().int().min(0).optional(),
    once: id.optional(),
  }),
  z.object({ type: z.literal('injected'), req: request, id }),
  z.object({ type: z.literal('interrupt'), signal: z.enum(['SIGINT', 'SIGQUIT', 'SIGTSTP']) }),
  z.object({ type: z.literal('stop'), req: request }),
  z.object({ type: z.literal('redraw'), req: request }),
  /** The screen, caught up with all output read so far (protocol 2). */
  z.object({ type: z.literal('screen'), req: request }),
  /**
   * Output over this socket on or off (protocol 2): switched on, the reply carries the screen the output
   * after it continues from.
   */
  z.object({ type: z.literal('output'), req: request, on: z.boolean() }),
  /**
   * The spawner's terminal (protocol 2, a `direct` client): on, the host starts writing the output there; off,
   * it stops (the terminal detaches) and replies once everything before is written.
   */
  z.object({ type: z.literal('terminal'), req: request, on: z.boolean() }),
  z.object({ type: z.literal('release') }),
  /** The controller asks again for the finished lines after this number (it read the rest). */
  z.object({ type: z.literal('lines'), after: z.number().int().min(0) }),
  z.object({ type: z.literal('done') }),
  z.object({
    type: z.literal('hookReply'),
    id: z.number().int().min(1),
    status: z.number().int().min(200).max(599),
    body: z.string().max(MAX_HOOK_BODY_CHARS),
    /** The prompt this answers: the host remembers it went out (`injected` says so to a later controller). */
    once: id.optional(),
  }),
]);

export type Hello = z.infer<typeof hello>;
export type ClientRequest = z.infer<typeof clientRequests>;

/** The first message, or null when it is not a hello (the connection is then refused). */
export function parseHello(text: string): Hello | null {
  const parsed = hello.safeParse(parseJson(text));
  return parsed.success ? parsed.data : null;
}

/** A later message, or null: malformed, or a type this host does not know (ignored, for newer clients). */
export function parseRequest(text: string): ClientRequest | null {
  const parsed = clientRequests.safeParse(parseJson(text));
  return parsed.success ? parsed.data : null;
}

/** What the session is, as its host tells every client. */
export interface HostedSession {
  id: string;
  agent: string;
  label: string;
  cwd: string;
  command: string;
  recording: string | null;
  /** The web may type into it (serve's own sessions; `run --web-input`). */
  webInput: boolean;
  /** The web may see it (not `run --no-web-view`). */
  webView: boolean;
  /** Claude Code's hooks post to this host (it relays them to the controller). */
  hooks: boolean;
  startedAt: number;
}

export interface ExitReport {
  exitCode: number | null;
  signal: string | null;
  /**
   * Stopped on request, not ended on its own: why, and the signal it stands for (what `run` exits with, as a
   * shell would for a process killed by it).
   */
  stopped: { reason: string; signal: string } | null;
}

/** What a client gets from the host (and shows what each field holds); checked loosely, newer fields ignored. */
export type HostFrame =
  | {
      type: 'welcome';
      protocol: number;
      version: string;
      session: HostedSession;
      pid: number;
      hostPid: number;
      ttyPath: string;
      cols: number;
      rows: number;
      driving: boolean;
      title: string;
      /** ANSI that draws the screen (and scrollback) in a fresh terminal. */
      screen: string;
      /** Output bytes so far: the screen above shows exactly these. */
      outputAt: number;
      control: 'granted' | 'held' | 'waiting' | 'none';
      exit: ExitReport | null;
      /** Protocol 2, a `screens` client: the screen as the host reads it, and whether it is settled now. */
      state?: ScreenState;
      settled?: boolean;
      /** Protocol 2: the host writes this client's output to its terminal (the `direct` hello was taken). */
      direct?: boolean;
    }
  | { type: 'refused'; reason: string; code: 'protocol' | 'secret' | 'policy' | 'bad-hello' }
  | {
      type: 'control';
      granted: true;
      screen: string;
      outputAt: number;
      cols: number;
      rows: number;
      state?: ScreenState;
      settled?: boolean;
    }
  /** Protocol 2, to `screens` clients: the screen settled (output paused and is all parsed). */
  | { type: 'settled'; state: ScreenState }
  /** Protocol 2, to `screens` clients: output arrived after the screen settled (once until it settles again). */
  | { type: 'active'; outputAt: number }
  | { type: 'size'; cols: number; rows: number; driving: boolean }
  | { type: 'typed'; data: string }
  | { type: 'lines'; first: number; lines: string[] }
  | { type: 'hook'; id: number; event: string; body: string; late: boolean }
  | { type: 'hookGone'; id: number }
  | { type: 'hookRefused'; event: string; reason: string }
  /** Something the host could not write (the recording, on a full disk): the controller says so and audits it. */
  | { type: 'notice'; what: string; reason: string }
  | { type: 'reply'; req: number; ok: boolean; error?: string; [key: string]: unknown }
  | { type: 'exit'; report: ExitReport };

const KNOWN_FRAMES = new Set([
  'welcome',
  'refused',
  'control',
  'size',
  'typed',
  'lines',
  'hook',
  'hookGone',
  'hookRefused',
  'notice',
  'reply',
  'exit',
  'settled',
  'active',
]);

/** A host's message, or null for one this agent-bridge does not know (from a newer host: ignored). */
export function parseHostFrame(text: string): HostFrame | null {
  const value = parseJson(text);
  if (typeof value !== 'object' || value === null) return null;
  const type = (value as { type?: unknown }).type;
  return typeof type === 'string' && KNOWN_FRAMES.has(type) ? (value as HostFrame) : null;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

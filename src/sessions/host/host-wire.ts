import type { ScreenState } from '../../drivers/terminal/screen.js';
import type { AsciicastHeader } from '../../store/asciicast-writer.js';

/**
 * The session-host protocol: what `run`, `attach` and `serve` (clients) and a session host say over its unix
 * socket, as WebSocket messages. Binary messages are terminal bytes: output (host → client) and a person's keys
 * (client → host). Text messages are JSON, one object each: checked whole by the host (host-requests.ts),
 * loosely by clients (parseHostFrame).
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
/** The widest and tallest terminal a client may ask for (cols and rows each): `run --cols/--rows` is held to it too. */
export const MAX_TERMINAL_SIZE = 10_000;
/**
 * How long a host that ended lets its clients (over its socket, and browsers) read what they were sent and
 * answer its close: a slow one can be megabytes behind (up to the backlog that pauses the agent, more in the
 * kernel). Past it, the rest are cut off, and the host's process goes.
 */
export const CLIENTS_CLOSE_GRACE_MS = 10_000;
/** Who is connecting: a person's terminal, a browser (through serve), serve itself, or a one-shot command. */
export const CLIENT_KINDS = ['terminal', 'web', 'serve', 'cli'] as const;
export type ClientKind = (typeof CLIENT_KINDS)[number];

export type { ClientRequest, Hello } from './host-requests.js';

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
      /** This client's keys reach the agent (a browser only where the session lets the web type, not watching). */
      canType?: boolean;
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

/** JSON, or null for text that is not. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** What a session host is started with (by the process that spawns it, over a pipe). */
export interface HostLaunch {
  session: HostedSession;
  args: string[];
  env: Record<string, string>;
  cols: number;
  rows: number;
  recording: AsciicastHeader | null;
  /** Number the lines the program finishes, for the controller's chats (a backlog keeps the newest). */
  lines: boolean;
  /** The secret Claude Code's hooks present (their posts reach this host's socket); null: no hooks. */
  hookToken: string | null;
  /** `run --no-detach`: the agent ends when its first controller goes without letting go. */
  endWithController: boolean;
  /** The host was started with its spawner's terminal: it writes the agent's output there (a `direct` client). */
  terminal?: boolean;
  /** How long the host waits for its first client (its spawner) before it ends the agent; FIRST_CLIENT_MS. */
  firstClientMs?: number;
  version: string;
}

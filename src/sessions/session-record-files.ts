import path from 'node:path';
import type { ExitInfo } from '../core/events.js';
import type { AsciicastHeader } from '../store/asciicast-writer.js';
import { recordingsDir } from '../store/paths.js';
import type { SessionStatus } from '../store/session-store.js';
import type { Store } from '../store/store.js';
import type { AgentSessionOptions } from './agent-session-options.js';

/** What a session leaves behind: where its recording goes, and how its end is kept in the store. */

export type EndStatus = Exclude<SessionStatus, 'active'>;

/** Signals a person sends to end a program (Ctrl-C, Ctrl-\\, its terminal closing, `kill`): ended, not crashed. */
const ENDING_SIGNALS = new Set(['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT']);

/**
 * How a session ended, the same everywhere (`run`, `attach`, `serve`, a stop): stopped through agent-bridge, or
 * by a signal a person sends: terminated; exited on its own, whatever its code (kept beside it): completed;
 * killed by any other signal (SIGKILL, SIGSEGV…) or gone with no exit known: crashed.
 */
export function endStatusOf(exit: ExitInfo, stopped: boolean): EndStatus {
  if (stopped) return 'terminated';
  if (exit.exitCode !== null) return 'completed';
  return exit.signal !== null && ENDING_SIGNALS.has(exit.signal) ? 'terminated' : 'crashed';
}

/** Where the session is recorded, and the recording's header (whoever writes it: its controller, or its host). */
export function recordingPlan(
  options: Pick<AgentSessionOptions, 'spec' | 'cols' | 'rows' | 'clock' | 'command' | 'args'>,
  sessionId: string,
): { file: string; header: AsciicastHeader } {
  const { spec, cols, rows, clock } = options;
  const stamp = new Date(clock.now()).toISOString().replace(/[:.]/g, '-');
  return {
    file: path.join(recordingsDir(), `${stamp}-${spec.id}-${sessionId.slice(0, 8)}.cast`),
    header: {
      width: cols,
      height: rows,
      timestamp: Math.floor(clock.now() / 1000),
      title: `agent-bridge run ${spec.id}`,
      command: [options.command, ...options.args].join(' '),
      env: { TERM: 'xterm-256color', SHELL: process.env.SHELL ?? '' },
    },
  };
}

/** The session's end in its row and the audit log, and said in its chats (`announce`: the line; null: not). */
export function recordSessionEnd(
  store: Store,
  sessionId: string,
  exit: ExitInfo,
  status: EndStatus,
  announce: string | null,
): void {
  store.sessions.end(sessionId, status, exit.exitCode);
  store.audit.record('SESSION_END', {
    session_id: sessionId,
    exit_code: exit.exitCode,
    signal: exit.signal,
    status,
  });
  if (announce !== null) store.channels.addMessage(sessionId, 'notice', announce);
}

/** How a session ended, as its chats are told: `⏹ Claude Code session 3f2a9c1e ended (completed, exit code 0)`. */
export function endLine(agent: string, sessionId: string, exit: ExitInfo, status: EndStatus): string {
  return `⏹ ${agent} session ${sessionId.slice(0, 8)} ended (${status}, ${exitHow(exit)})`;
}

/** `exit code 0`, `signal SIGINT`. */
export function exitHow(exit: ExitInfo): string {
  return exit.exitCode !== null ? `exit code ${exit.exitCode}` : `signal ${exit.signal ?? '?'}`;
}

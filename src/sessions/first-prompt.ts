import { redactSecrets } from '../core/redact.js';
import { withoutSpaces } from '../core/screen-text.js';
import type { Store } from '../store/store.js';
import type { AgentSession } from './agent-session.js';

/** Longest first prompt kept: enough to tell sessions apart in a list. */
export const FIRST_PROMPT_CHARS = 200;
/** A line being typed is not kept beyond this (a paste of a file is not a prompt to name a session by). */
const MAX_LINE_CHARS = 2_000;
/* eslint-disable no-control-regex -- escape sequences are what these match */
/** Escape sequences (cursor keys, bracketed-paste marks, function keys): CSI, SS3 and two-byte forms. */
const ESCAPE_SEQUENCE = /\x1b(?:\[[0-?]*[ -/]*[@-~]|O.|[^[O])/g;
/**
 * Cursor, history and editing keys (arrows, Home, End, Delete): once used, the line on screen is not the keys
 * typed. Bracketed-paste marks (ESC [200~, ESC [201~) are not among them.
 */
const EDITING_KEYS = /\x1b(?:\[(?!20[01]~)[0-9;]*[A-DHF~]|O[A-DHF])/;
/* eslint-enable no-control-regex */

/**
 * The first line a person typed into a session, to name it by ("fix the flaky login test"). Keys arrive as
 * typed: backspace and Ctrl-U are applied; a line edited with cursor or history keys is not known and is
 * skipped, and so is a single word (`exit`, `ls`). A line is only kept once `accept` agrees (it was echoed on screen, so never a password; no prompt
 * was being answered).
 */
export class FirstPrompt {
  private line = '';
  /** The line was edited in ways these keys cannot follow. */
  private unknown = false;
  private done = false;
  private offering = false;

  constructor(private readonly accept: (line: string, typed: boolean) => Promise<boolean>) {}

  /** Keys typed at a terminal (the local one, a browser's). */
  typed(data: string | Buffer): void {
    if (this.done) return;
    const text = typeof data === 'string' ? data : data.toString('utf8');
    if (EDITING_KEYS.test(text)) this.unknown = true;
    for (const char of text.replace(ESCAPE_SEQUENCE, '')) {
      if (char === '\r' || char === '\n') this.endLine();
      else if (char === '\x7f' || char === '\b') this.line = [...this.line].slice(0, -1).join('');
      else if (char === '\x15' || char === '\x03') this.reset();
      else if (char >= ' ' && this.line.length < MAX_LINE_CHARS) this.line += char;
    }
  }

  /** A whole message sent from a chat or the inbox. */
  sent(text: string): void {
    if (this.done) return;
    this.offer(text, false);
  }

  private endLine(): void {
    const line = this.line;
    const known = !this.unknown;
    this.reset();
    if (known) this.offer(line, true);
  }

  private reset(): void {
    this.line = '';
    this.unknown = false;
  }

  private offer(raw: string, typed: boolean): void {
    const line = raw.replace(/\s+/g, ' ').trim();
    // A single word (`exit`, `ls`, `y`) names no task; one line is checked at a time.
    if (!line.includes(' ') || this.offering) return;
    this.offering = true;
    void this.accept(line, typed)
      .then((kept) => (this.done ||= kept))
      .catch(() => undefined)
      .finally(() => (this.offering = false));
  }
}

const recorders = new WeakMap<AgentSession, FirstPrompt>();

/**
 * The session's first-prompt recorder (one per session, whoever types: its terminal, a browser, a chat). A
 * line is kept when it shows on the agent's screen (a password is not echoed) and no prompt of the session is
 * open (keys then answer it). A message sent from a chat is typed by agent-bridge itself: it is kept as sent.
 */
export function firstPromptOf(session: AgentSession, store: Pick<Store, 'sessions'>): FirstPrompt {
  let recorder = recorders.get(session);
  if (!recorder) {
    recorder = new FirstPrompt(async (line, typed) => {
      if (session.coordinator.hasOpenPrompt) return false;
      if (typed && !(await echoed(session, line))) return false;
      // Shown in lists and kept in the store: a secret typed in the line is hidden first.
      store.sessions.setFirstPrompt(
        session.id,
        redactSecrets([...line].slice(0, FIRST_PROMPT_CHARS).join('')),
      );
      return true;
    });
    recorders.set(session, recorder);
  }
  return recorder;
}

/** Keys typed at once (a paste, a line sent whole) are echoed after their Enter: wait for the screen that far. */
const ECHO_WAIT_MS = 3_000;

/**
 * The line shows on the agent's screen (wrapped lines included), at once or at a settle within ECHO_WAIT_MS of
 * the Enter: not only the first one (a busy machine, or a TUI that redraws before it shows the line, settles
 * earlier).
 */
async function echoed(session: AgentSession, line: string): Promise<boolean> {
  const terminal = session.terminal;
  if (!terminal) return true; // a structured agent took the line as a message: nothing is hidden there
  // The screen is read redacted: compare the line as it would show there.
  const wanted = withoutSpaces(redactSecrets(line));
  return terminal.untilScreen((screen) => withoutSpaces(screen.text).includes(wanted), ECHO_WAIT_MS);
}

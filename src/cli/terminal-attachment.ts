import type { ExitInfo } from '../core/events.js';
import type { TerminalSession } from '../drivers/terminal/terminal-session.js';
import { describeDetachKey, splitAtDetachKey } from './detach-key.js';
import type { HostTerminal } from './host-terminal.js';

const LF = 0x0a;
const CR = 0x0d;
/** Ctrl-D: the terminal's end-of-file character (VEOF) in its line mode. */
const EOT = 0x04;

/** How a terminal attached to a session stopped being attached. */
export type AttachmentEnd =
  | { how: 'exited'; exit: ExitInfo }
  | { how: 'detached'; why: 'key' | 'hangup' | 'crash' }
  | { how: 'stopped'; signal: NodeJS.Signals };

export interface AttachmentOptions {
  /** The detach key's byte; null: none. */
  detachKey: number | null;
  /** SIGHUP (the terminal closed) stops the agent instead of leaving it running (`run --no-detach`). */
  stopOnHangup: boolean;
  /** Only watch: keys typed here (but the detach key) and this terminal's size never reach the agent. */
  readOnly?: boolean;
  /** Keys typed here, as they go to the agent (a session's first prompt is read from them). */
  typed?: (chunk: Buffer) => void;
  /** Ends the agent (SIGTERM to `run`/`attach`, or SIGHUP with stopOnHangup). */
  stop(signal: NodeJS.Signals): void;
}

/**
 * This terminal attached to an agent's terminal, transparently: raw keys in, output out (a slow terminal
 * pauses the agent rather than growing memory), its size passed on at every resize, and the terminal put back
 * however it ends: the agent exits, the detach key, the terminal closing (SIGHUP: the session goes on), a
 * SIGTERM (it stops), or an internal error (the session goes on).
 */
export async function attachTerminal(
  host: HostTerminal,
  terminal: TerminalSession,
  options: AttachmentOptions,
): Promise<AttachmentEnd> {
  const out = host.output;
  let end!: (how: AttachmentEnd) => void;
  const ended = new Promise<AttachmentEnd>((resolve) => (end = resolve));
  // The session host writes to this terminal itself where it was started with it; else the output comes here.
  const direct = terminal.pty.terminalOutput ?? null;
  const unsubscribe = direct ? () => undefined : relayOutput(terminal, out);
  let lastKey = LF;
  const onInput = (chunk: Buffer) => {
    const { keys, detach } = splitAtDetachKey(chunk, options.detachKey);
    if (keys.length > 0 && !options.readOnly) {
      terminal.userInput(keys);
      options.typed?.(keys);
      lastKey = keys[keys.length - 1]!;
    }
    if (detach) end({ how: 'detached', why: 'key' });
  };
  // Input from a pipe or a file ends: the agent reads end-of-file, as `script` does it (Ctrl-D; a second one
  // when a line was left unfinished, which the first only hands over). /dev/null is no input, not an end.
  const onInputEnd = () => {
    if (host.interactive || options.readOnly || !host.inputEnds) return;
    terminal.userInput(Buffer.from(lastKey === LF || lastKey === CR ? [EOT] : [EOT, EOT]));
  };
  host.input.on('data', onInput);
  host.input.once('end', onInputEnd);
  host.enterRawMode();
  host.input.resume();
  direct?.start();
  const stopResize = host.onResize(({ cols, rows }) => {
    if (!options.readOnly) terminal.resize(cols, rows);
  });
  const onSignal = (signal: NodeJS.Signals) => {
    // Without a tty, Ctrl-C reaches us as SIGINT: pass it to the agent, as the terminal would.
    if (signal === 'SIGINT' && !host.interactive) return terminal.interrupt();
    if (signal === 'SIGHUP') {
      host.hangUp();
      terminal.pty.resume(); // nothing waits for this terminal to drain any more
      // What is still said on stderr goes nowhere now: a write to the hung-up terminal is not an error.
      process.stderr.on('error', () => undefined);
    }
    if (signal === 'SIGHUP' && !options.stopOnHangup) return end({ how: 'detached', why: 'hangup' });
    options.stop(signal);
    end({ how: 'stopped', signal });
  };
  const onCrash = crashHandler(() => end({ how: 'detached', why: 'crash' }));
  const signals: NodeJS.Signals[] = ['SIGTERM', 'SIGHUP', 'SIGINT'];
  for (const signal of signals) process.on(signal, onSignal);
  process.on('uncaughtException', onCrash);
  process.on('unhandledRejection', onCrash);
  void terminal.exited.then((exit) => end({ how: 'exited', exit }));
  try {
    const how = await ended;
    // A stop waits for the agent to end: its last output still reaches this terminal (if it is still there).
    if (how.how === 'stopped') await terminal.exited;
    if (how.how !== 'detached' && !out.destroyed) {
      await terminal.screen.catchUp();
      await drain(out);
    }
    return how;
  } finally {
    // Nothing more reaches this terminal from the session before it is put back.
    await direct?.stop();
    unsubscribe();
    stopResize();
    host.input.off('data', onInput);
    host.input.off('end', onInputEnd);
    for (const signal of signals) process.off(signal, onSignal);
    process.off('uncaughtException', onCrash);
    process.off('unhandledRejection', onCrash);
    // Leave the user's prompt on a fresh line even when the agent died mid-line.
    const { cursor } = terminal.screen.snapshot();
    host.restore(terminal.screen.resetSequence() + (cursor.x > 0 ? '\r\n' : ''));
  }
}

/**
 * The agent's output onto this terminal; a slow terminal pauses the agent until it drained. One wait for a
 * drain at a time: output already on its way from the session host keeps coming for a while after the pause.
 */
function relayOutput(terminal: TerminalSession, out: NodeJS.WriteStream): () => void {
  let awaitingDrain = false;
  return terminal.on((event) => {
    if (event.type !== 'output' || out.destroyed) return;
    if (!out.write(event.data) && !awaitingDrain) {
      awaitingDrain = true;
      terminal.pty.pause();
      out.once('drain', () => {
        awaitingDrain = false;
        terminal.pty.resume();
      });
    }
  });
}

/** What to say when a terminal let go of a session that goes on. */
export function detachedLine(sessionId: string, detachKey: number | null): string {
  const again = `agent-bridge attach ${sessionId.slice(0, 8)}`;
  const key = detachKey === null ? '' : ` (${describeDetachKey(detachKey)} detaches)`;
  return `agent-bridge: detached; session ${sessionId.slice(0, 8)} goes on: ${again}${key}\n`;
}

function drain(out: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (!out.writableNeedDrain) resolve();
    else out.once('drain', () => resolve());
  });
}

/** An internal error while attached: said once on the terminal, then `detach` (the session goes on). */
function crashHandler(detach: () => void): (error: unknown) => void {
  let crashed = false;
  return (error) => {
    if (crashed) return;
    crashed = true;
    try {
      process.stderr.write(
        `\r\nagent-bridge: internal error: ${error instanceof Error ? error.message : String(error)}\r\n`,
      );
    } catch {
      // nowhere to say it
    }
    detach();
  };
}

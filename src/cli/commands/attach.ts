import { systemClock } from '../../core/clock.js';
import type { TerminalSession } from '../../drivers/terminal/terminal-session.js';
import { HostConnection, HostUnavailable } from '../../sessions/host/host-connection.js';
import { over, viewOf } from '../../sessions/host/hosted-terminal.js';
import { reapDeadSessions } from '../../sessions/session-liveness.js';
import { openStore } from '../../store/store.js';
import { parseDetachKey } from '../detach-key.js';
import { CliFailure, UsageError } from '../errors.js';
import { controlHere, findHostedSession } from '../hosted-session.js';
import { HostTerminal } from '../host-terminal.js';
import { attachTerminal, detachedLine } from '../terminal-attachment.js';
import { exitCodeOf } from './run.js';

export interface AttachOptions {
  detachKey: string;
  readOnly?: boolean;
}

/** Clears the screen and its scrollback: the session's own screen is drawn on a clean terminal. */
const CLEAR = '\x1b[H\x1b[2J\x1b[3J';

/**
 * `agent-bridge attach [session]`: this terminal on a session that runs in a session host, as `run` would
 * show it: its screen redrawn, keys in, output out, the size following whichever attached terminal typed last.
 * Several terminals may attach at once. With no one else controlling the session (no `run`, no serve), this
 * process takes it over: its prompts reach the store and its answers are typed from here. The detach key
 * leaves it running; the agent's exit code becomes ours.
 */
export async function attachCommand(ref: string | undefined, options: AttachOptions): Promise<number> {
  const detachKey = parseDetachKey(options.detachKey);
  const host = new HostTerminal(process.stdin, process.stdout);
  if (!host.interactive) throw new UsageError('agent-bridge attach needs a terminal: run it in one');
  const store = openStore();
  try {
    reapDeadSessions(store);
    const record = findHostedSession(store, ref, 'attach');
    const readOnly = options.readOnly ?? false;
    const connection = await HostConnection.open({
      dataDir: store.dir,
      socket: record.sessionHost!.socket,
      client: 'terminal',
      control: readOnly ? 'no' : 'if-free',
      drives: !readOnly,
      size: host.size(),
      linesAfter: record.linesRead,
      clock: systemClock,
    }).catch((error: unknown) => {
      throw error instanceof HostUnavailable ? new CliFailure(error.message) : error;
    });
    const agent = await controlHere(connection, record, store, (line) =>
      process.stderr.write(`\r\nagent-bridge: ${line}\r\n`),
    );
    const terminal: TerminalSession = agent?.terminal ?? plainClient(connection);
    if (connection.welcome.exit) return exitCodeOf(await terminal.exited);
    process.stdout.write(CLEAR + connection.welcome.screen);
    if (!readOnly) terminal.resize(host.size().cols, host.size().rows);
    const end = await attachTerminal(host, terminal, {
      detachKey,
      stopOnHangup: false,
      readOnly,
      stop: () => void (agent ? agent.stop() : terminal.stop()),
    });
    if (end.how === 'detached') {
      if (agent) await agent.letGo('attach detached');
      else connection.close();
      if (end.why !== 'hangup') process.stderr.write(detachedLine(record.id, detachKey));
      return end.why === 'crash' ? 1 : 0;
    }
    const exit = await terminal.exited;
    if (agent) await agent.finish(exit, agent.endStatus(exit));
    else connection.close();
    return exitCodeOf(exit);
  } finally {
    store.close();
  }
}

/** A client of the host among others: it shows the screen and types; someone else handles the prompts. */
function plainClient(connection: HostConnection): TerminalSession {
  const { terminal } = over(connection, viewOf(connection), { clock: systemClock });
  connection.start();
  return terminal;
}

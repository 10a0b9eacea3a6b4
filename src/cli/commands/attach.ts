import { hostname } from 'node:os';
import { getAgent, isAgentId } from '../../agents/registry.js';
import { systemClock } from '../../core/clock.js';
import type { TerminalSession } from '../../drivers/terminal/terminal-session.js';
import { AgentSession } from '../../sessions/agent-session.js';
import { HostConnection, HostUnavailable } from '../../sessions/host/host-connection.js';
import { over, viewOf } from '../../sessions/host/hosted-terminal.js';
import { reapDeadSessions } from '../../sessions/session-liveness.js';
import type { SessionRecord } from '../../store/session-store.js';
import { openStore, type Store } from '../../store/store.js';
import { parseDetachKey } from '../detach-key.js';
import { CliFailure, UsageError } from '../errors.js';
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
    const record = findSession(store, ref);
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
    const agent = await controllerFor(connection, record, store);
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

/** The session the reference names: running, in a session host of this machine. */
function findSession(store: Store, ref: string | undefined): SessionRecord {
  const here = store.sessions.list().filter((s) => s.host === hostname());
  const hosted = here.filter((s) => s.sessionHost);
  if (ref === undefined) {
    if (hosted.length === 1) return hosted[0]!;
    if (hosted.length === 0)
      throw new CliFailure('no session runs in a session host here: start one with agent-bridge run');
    const list = hosted.map((s) => `${s.id.slice(0, 8)} (${s.agent} in ${s.cwd})`).join(', ');
    throw new UsageError(`several sessions run here: ${list}; name one: agent-bridge attach <id>`);
  }
  const matches = here.filter((s) => s.id.startsWith(ref.toLowerCase()));
  if (matches.length === 0)
    throw new CliFailure(`no running session ${ref} here (agent-bridge status lists them)`);
  if (matches.length > 1) throw new UsageError(`${ref} matches several sessions: give more of the id`);
  const record = matches[0]!;
  if (!record.sessionHost)
    throw new CliFailure(
      `session ${ref} has no terminal to attach to (it runs under the structured driver, inside the agent-bridge that started it); its prompts: agent-bridge approvals`,
    );
  return record;
}

/** This process takes the session over when no one else controls it. */
async function controllerFor(
  connection: HostConnection,
  record: SessionRecord,
  store: Store,
): Promise<AgentSession | null> {
  if (connection.welcome.control !== 'granted' || !isAgentId(record.agent)) return null;
  return AgentSession.takeOver({
    spec: getAgent(record.agent),
    record,
    connection,
    view: viewOf(connection),
    store,
    clock: systemClock,
    autoTrust: true,
    hooks: connection.welcome.session.hooks,
    onNotice: (line) => process.stderr.write(`\r\nagent-bridge: ${line}\r\n`),
  });
}

/** A client of the host among others: it shows the screen and types; someone else handles the prompts. */
function plainClient(connection: HostConnection): TerminalSession {
  const { terminal } = over(connection, viewOf(connection), { clock: systemClock });
  connection.start();
  return terminal;
}

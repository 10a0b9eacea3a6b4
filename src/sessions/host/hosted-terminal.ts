import { systemClock, type Clock } from '../../core/clock.js';
import type { ProcessRef } from '../../core/process-ref.js';
import { readProcess } from '../../drivers/terminal/process-tree.js';
import type { CellSize } from '../../drivers/terminal/terminal-port.js';
import { TerminalSession, type TerminalReadingOptions } from '../../drivers/terminal/terminal-session.js';
import { HostConnection, HostUnavailable, loadHostClient } from './host-connection.js';
import type { HostStart } from './host-main.js';
import type { ClientKind } from './host-wire.js';
import { RemotePort, type HostView } from './remote-port.js';
import { spawnHost } from './spawn-host.js';
import type { ViewerHandoff } from './viewer-handoff.js';
import { packageVersion } from '../../package-files.js';

/** A terminal session whose PTY a session host holds, as its controller (or a plain client) drives it. */
export interface HostedTerminal {
  terminal: TerminalSession;
  port: RemotePort;
  connection: HostConnection;
  /** The host's process, as the store keeps it (pid and start time). */
  hostProcess: ProcessRef;
}

/** What a session host is started with (its launch, less what this process adds), and how to connect to it. */
export interface HostedStart extends Omit<HostStart, 'env' | 'terminal' | 'firstClientMs' | 'version'> {
  env: NodeJS.ProcessEnv;
  /** The host writes the output to this process's stdout (see HostedOptions.terminal). */
  terminal: boolean;
  /** Who starts it: a person's terminal (`run`) or serve. */
  client: ClientKind;
  /** serve's: browsers' terminals are handed to the host, which serves them (browser-viewers.ts). */
  viewers: boolean;
  reading: TerminalReadingOptions;
  clock: Clock;
}

/** Starts the agent in a session host of its own, and connects to it as its controller. */
export async function startHosted(start: HostedStart): Promise<HostedTerminal> {
  const { env, client, viewers, reading, clock, ...launch } = start;
  const launched = spawnHost({ ...launch, env: plainEnv(env), version: packageVersion() }, { viewers });
  void loadHostClient().catch(() => undefined);
  const spawned = await launched;
  // The host reads the screen for us; its output comes here only when asked for (someone watches it here).
  const connection = await HostConnection.open({
    dataDir: start.dataDir,
    socket: spawned.socket,
    client,
    control: 'if-free',
    screens: true,
    output: false,
    direct: start.terminal,
    drives: true,
    size: { cols: start.cols, rows: start.rows },
    clock,
  });
  if (connection.welcome.control !== 'granted') {
    connection.close();
    throw new HostUnavailable('another process took control of the new session first');
  }
  const hosted = over(connection, viewOf(connection), reading, spawned.viewers);
  return { ...hosted, hostProcess: processRef(spawned.hostPid) };
}

/** The terminal driver over a connection to a host, from the screen the host showed it. */
export function over(
  connection: HostConnection,
  view: HostView,
  reading: TerminalReadingOptions,
  viewers: ViewerHandoff | null = null,
): { terminal: TerminalSession; port: RemotePort; connection: HostConnection } {
  const port = new RemotePort(connection, view, viewers);
  const screen = RemotePort.screenFor(connection, view, reading.clock ?? systemClock);
  const terminal = new TerminalSession(port, reading, screen);
  port.onTyped((data) => terminal.typedElsewhere(data));
  return { terminal, port, connection };
}

/** What the welcome showed a client. */
export function viewOf(connection: HostConnection): HostView {
  const { screen, outputAt, cols, rows, state, settled } = connection.welcome;
  return { screen, outputAt, cols, rows, ...(state ? { state, settled: settled ?? false } : {}) };
}

/** Connects to a session's host (as the store names its socket), checked first. */
export function connectToHost(options: {
  dataDir: string;
  socket: string;
  client: ClientKind;
  control: 'no' | 'if-free' | 'wait';
  size?: CellSize;
  drives?: boolean;
  output?: boolean;
  linesAfter?: number;
  clock: Clock;
}): Promise<HostConnection> {
  return HostConnection.open(options);
}

export function processRef(pid: number): ProcessRef {
  return { pid, startTime: readProcess(pid)?.startTime ?? null };
}

/** The environment as strings only (the host gets it as JSON). */
function plainEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const plain: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (typeof value === 'string') plain[key] = value;
  return plain;
}

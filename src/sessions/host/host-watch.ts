import { hostname } from 'node:os';
import { getAgent, isAgentId } from '../../agents/registry.js';
import type { PromptTtls } from '../../config/prompt-ttls.js';
import type { Clock } from '../../core/clock.js';
import { isProcessAlive } from '../../drivers/terminal/process-tree.js';
import type { SessionRecord } from '../../store/session-store.js';
import type { Store } from '../../store/store.js';
import { AgentSession } from '../agent-session.js';
import type { LiveSessions } from '../live-sessions.js';
import { SharedStoreChanges } from '../store-watcher.js';
import { headlessControllerOptions, HostConnection } from './host-connection.js';
import { viewOf } from './hosted-terminal.js';
import type { HostView } from './remote-port.js';

export interface HostWatchOptions {
  store: Store;
  clock: Clock;
  live: LiveSessions;
  /** A session taken over goes back to its repository or thread (true), or is just run here (false). */
  claim(session: AgentSession, record: SessionRecord): boolean;
  log(line: string): void;
  /** How long each kind of prompt waits in sessions taken over (`defaults.prompt_ttl`, as reloaded). */
  promptTtlMs?: () => PromptTtls;
}

/**
 * serve as a client of every session host on the machine: it takes over each session no one controls (serve
 * was restarted, killed or upgraded while it ran; the `run` or `attach` that controlled it ended), and waits
 * its turn on the others (the host grants control to the next one waiting when their controller goes). New
 * sessions are noticed through the store, never by polling.
 */
export class SessionHostWatch {
  /** Sessions this watch reached (waiting for control, or taken over). */
  private readonly known = new Map<string, HostConnection | null>();
  private readonly taken = new Map<string, AgentSession>();
  private unwatch: (() => void) | null = null;
  private stopped = false;

  constructor(private readonly options: HostWatchOptions) {}

  /** Takes over what no one controls now, then keeps watching for sessions to come. */
  async start(): Promise<void> {
    await Promise.all(this.scan());
    this.unwatch = SharedStoreChanges.for(this.options.store, this.options.clock).subscribe(() => {
      void Promise.all(this.scan());
    });
  }

  /**
   * serve stops: the sessions it took over go on in their hosts, each once the answers being typed into it
   * went out (their records and audit lines written); the waiting connections close.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unwatch?.();
    // A taken session's connection closes when it is let go (an answer may still be going out through it).
    for (const [id, connection] of this.known) if (!this.taken.has(id)) connection?.close();
    this.known.clear();
    const taken = [...this.taken.values()];
    this.taken.clear();
    await Promise.all(taken.map((session) => session.letGo('agent-bridge serve stopped')));
  }

  /**
   * Running sessions of this machine in live session hosts, not reached yet (this process's own too: it waits
   * for them like any other, which costs a connection and nothing else).
   */
  private scan(): Array<Promise<void>> {
    if (this.stopped) return [];
    const waiting: Array<Promise<void>> = [];
    for (const record of this.options.store.sessions.list()) {
      if (!record.sessionHost || record.host !== hostname() || this.known.has(record.id)) continue;
      if (!isProcessAlive(record.sessionHost.process)) continue;
      this.known.set(record.id, null);
      waiting.push(this.reach(record));
    }
    return waiting;
  }

  /** Connects as the next controller: control at once if no one has it, else when it is let go. */
  private async reach(record: SessionRecord): Promise<void> {
    const { store, clock } = this.options;
    const connection = await HostConnection.open(
      headlessControllerOptions(store.dir, record, 'serve', 'wait', clock),
    ).catch((error: unknown) => {
      this.options.log(`session ${record.id.slice(0, 8)}: ${(error as Error).message}`);
      return null;
    });
    if (!connection || this.stopped) {
      this.known.delete(record.id);
      return connection?.close();
    }
    this.known.set(record.id, connection);
    connection.onClose(() => this.known.delete(record.id));
    if (connection.welcome.control === 'granted')
      return this.takeOver(record.id, connection, viewOf(connection));
    connection.onFrame((frame) => {
      if (frame.type !== 'control') return;
      const { screen, outputAt, cols, rows, state, settled } = frame;
      const view = { screen, outputAt, cols, rows, ...(state ? { state, settled: settled ?? false } : {}) };
      void this.takeOver(record.id, connection, view, true);
    });
    connection.start();
  }

  private async takeOver(
    id: string,
    connection: HostConnection,
    view: HostView,
    later = false,
  ): Promise<void> {
    const { store, clock, live, log } = this.options;
    const record = store.sessions.get(id);
    if (!record || record.status !== 'active' || !isAgentId(record.agent) || this.stopped) {
      connection.close();
      return;
    }
    const session = await AgentSession.takeOver({
      spec: getAgent(record.agent),
      record,
      connection,
      view,
      store,
      clock,
      autoTrust: true,
      ...(this.options.promptTtlMs ? { ttlMs: this.options.promptTtlMs() } : {}),
      hooks: connection.welcome.session.hooks,
      onNotice: (line) => log(`${record.label}: ${line}`),
    }).catch((error: unknown) => {
      log(`session ${id.slice(0, 8)} could not be taken over: ${(error as Error).message}`);
      connection.close();
      return null;
    });
    if (!session) return;
    // Control came later than the hello: the lines the chats have not read are asked for now.
    if (later) connection.send({ type: 'lines', after: record.linesRead });
    this.taken.set(id, session);
    void session.gone.then(() => {
      this.taken.delete(id);
      this.known.delete(id);
    });
    log(`session ${id.slice(0, 8)} (${record.label}) taken over: it kept running in its session host`);
    if (this.options.claim(session, record)) return;
    live.add(session);
    void session.exited.then((exit) => session.finish(exit, session.endStatus(exit)).catch(() => undefined));
  }
}

import { systemClock } from '../../core/clock.js';
import {
  headlessControllerOptions,
  HostConnection,
  HostUnavailable,
} from '../../sessions/host/host-connection.js';
import type { ExitReport } from '../../sessions/host/host-wire.js';
import { reapDeadSessions } from '../../sessions/session-liveness.js';
import type { SessionRecord } from '../../store/session-store.js';
import { openStore, type Store } from '../../store/store.js';
import { CliFailure } from '../errors.js';
import { controlHere, findHostedSession } from '../hosted-session.js';

/** How long a stop waits to hear the agent ended (its host gives it 5 s after SIGTERM, then kills it). */
const ENDED_WAIT_MS = 15_000;

interface Stopped {
  id: string;
  agent: string;
  cwd: string;
  /** Already over when asked (it ended meanwhile): nothing was stopped. */
  alreadyEnded: boolean;
  exitCode: number | null;
  signal: string | null;
}

/**
 * `agent-bridge stop <session...>`: ends sessions that run in a session host here, as the web UI's Stop does
 * (the agent's process group gets SIGHUP and SIGTERM, SIGKILL 5 s later). With no one controlling a session,
 * this process takes it over to record the end (its open prompts fail, the audit says who stopped it);
 * otherwise its controller (`run`, `attach`, `serve`) records it. Every reference is checked before any stops.
 */
export async function stopCommand(refs: string[], options: { json?: boolean }): Promise<number> {
  const store = openStore();
  const stopped: Stopped[] = [];
  try {
    reapDeadSessions(store);
    const records = refs.map((ref) => findHostedSession(store, ref, 'stop'));
    const once = new Map(records.map((record) => [record.id, record])); // one id named twice stops once
    for (const record of once.values()) stopped.push(await stopOne(store, record));
  } finally {
    store.close();
  }
  if (options.json) process.stdout.write(JSON.stringify(stopped, null, 2) + '\n');
  else for (const one of stopped) process.stdout.write(lineOf(one) + '\n');
  return 0;
}

async function stopOne(store: Store, record: SessionRecord): Promise<Stopped> {
  const connection = await HostConnection.open(
    headlessControllerOptions(store.dir, record, 'cli', 'if-free', systemClock),
  ).catch((error: unknown) => {
    throw error instanceof HostUnavailable ? new CliFailure(error.message) : error;
  });
  const already = connection.welcome.exit;
  const base = { id: record.id, agent: record.agent, cwd: record.cwd, alreadyEnded: Boolean(already) };
  const agent = await controlHere(connection, record, store);
  if (agent) {
    if (already) {
      const exit = await agent.terminal!.exited;
      await agent.finish(exit, agent.endStatus(exit));
      return { ...base, exitCode: exit.exitCode, signal: exit.signal };
    }
    await agent.stop({ reason: 'stopped with agent-bridge stop' });
    const exit = await agent.terminal!.exited;
    return { ...base, exitCode: exit.exitCode, signal: exit.signal };
  }
  const report = already ?? (await stopThroughHost(connection, record.id));
  return { ...base, exitCode: report.exitCode, signal: report.signal };
}

/** Someone else controls the session: the host stops the agent, its controller records the end. */
async function stopThroughHost(connection: HostConnection, id: string): Promise<ExitReport> {
  const ended = new Promise<ExitReport | null>((resolve) => {
    connection.onFrame((frame) => frame.type === 'exit' && resolve(frame.report));
    connection.onClose(() => resolve(null));
    systemClock.after(ENDED_WAIT_MS, () => resolve(null));
  });
  connection.start();
  try {
    await connection.request({ type: 'stop' });
    const report = await ended;
    if (!report)
      throw new CliFailure(`session ${id.slice(0, 8)} was asked to stop, but its end was not heard of`);
    return report;
  } finally {
    connection.close();
  }
}

function lineOf(one: Stopped): string {
  const how = one.signal ? `signal ${one.signal}` : `exit code ${one.exitCode ?? '?'}`;
  const what = `${one.id.slice(0, 8)} (${one.agent} in ${one.cwd})`;
  return one.alreadyEnded ? `${what} had ended already (${how})` : `stopped ${what} (${how})`;
}

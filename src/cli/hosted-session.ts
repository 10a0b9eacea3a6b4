import { hostname } from 'node:os';
import { getAgent, isAgentId } from '../agents/registry.js';
import { systemClock } from '../core/clock.js';
import { AgentSession } from '../sessions/agent-session.js';
import type { HostConnection } from '../sessions/host/host-connection.js';
import { viewOf } from '../sessions/host/hosted-terminal.js';
import type { SessionRecord } from '../store/session-store.js';
import type { Store } from '../store/store.js';
import { CliFailure, UsageError } from './errors.js';

/**
 * The running session of this machine a reference names (its id or the id's first characters), for `attach`
 * and `stop`; with no reference, the only one in a session host here. It must run in a session host.
 */
export function findHostedSession(
  store: Store,
  ref: string | undefined,
  verb: 'attach' | 'stop',
): SessionRecord {
  const here = store.sessions.list().filter((s) => s.host === hostname());
  const hosted = here.filter((s) => s.sessionHost);
  if (ref === undefined) {
    if (hosted.length === 1) return hosted[0]!;
    if (hosted.length === 0)
      throw new CliFailure('no session runs in a session host here: start one with agent-bridge run');
    const list = hosted.map((s) => `${s.id.slice(0, 8)} (${s.agent} in ${s.cwd})`).join(', ');
    throw new UsageError(`several sessions run here: ${list}; name one: agent-bridge ${verb} <id>`);
  }
  const matches = here.filter((s) => s.id.startsWith(ref.toLowerCase()));
  if (matches.length === 0)
    throw new CliFailure(`no running session ${ref} here (agent-bridge status lists them)`);
  if (matches.length > 1) throw new UsageError(`${ref} matches several sessions: give more of the id`);
  const record = matches[0]!;
  if (!record.sessionHost) {
    const where = `it runs under the structured driver, inside the agent-bridge that started it (pid ${record.ownerPid})`;
    throw new CliFailure(
      verb === 'attach'
        ? `session ${ref} has no terminal to attach to (${where}); its prompts: agent-bridge approvals`
        : `session ${ref} is not in a session host (${where}): stop it there (Ctrl-C), or from the web UI of the serve that runs it`,
    );
  }
  return record;
}

/** This process takes the session over when its host granted it control (no one else controls it); else null. */
export async function controlHere(
  connection: HostConnection,
  record: SessionRecord,
  store: Store,
  onNotice?: (line: string) => void,
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
    ...(onNotice ? { onNotice } : {}),
  });
}

import type { ProcessRef } from '../core/process-ref.js';
import { ownProcessRef } from '../drivers/terminal/process-tree.js';
import type { AgentSessionOptions } from './agent-session-options.js';
import { hostPaths } from './host/host-files.js';

/** What a session that started is registered with, beyond the options it was started with. */
export interface Registration {
  id: string;
  /** The recording's file, if it is recorded. */
  recording: string | null;
  /** The agent's process, and the driver that runs it. */
  pid: number;
  driver: string;
  /** Its session host's process, when it runs in one. */
  hostProcess: ProcessRef | null;
  /** The public key answers to its secret prompts are sealed with. */
  answerKey: string;
  /** The agent's own conversation id, if it said it before the row existed. */
  agentSessionId: string | null;
}

/**
 * The session's row in the store (with its host and the conversation id), `SESSION_START` in the audit log,
 * and, for a session with chats, the line that says it started there.
 */
export function registerSession(options: AgentSessionOptions, registration: Registration): void {
  const { spec, store } = options;
  const { id, pid, hostProcess } = registration;
  const approveFrom = options.approveFrom ?? [];
  const record = store.sessions.create({
    id,
    agent: spec.id,
    cwd: options.cwd,
    pid,
    recording: registration.recording,
    approveFrom,
    owner: ownProcessRef(),
    answerKey: registration.answerKey,
    ...(options.label ? { label: options.label } : {}),
  });
  const hosted = options.hosted;
  if (hostProcess && hosted)
    store.sessions.setHost(
      id,
      { process: hostProcess, socket: hostPaths(store.dir, id).socket },
      { input: hosted.webInput, view: hosted.webView },
    );
  if (registration.agentSessionId) store.sessions.setAgentSessionId(id, registration.agentSessionId);
  store.audit.record('SESSION_START', {
    session_id: id,
    agent: spec.id,
    cwd: options.cwd,
    pid,
    driver: registration.driver,
    ...(hostProcess ? { host_pid: hostProcess.pid } : {}),
    ...(options.startedBy ? { started_by: options.startedBy } : {}),
  });
  if (approveFrom.length > 0) {
    const where = `${record.label} on ${record.host}`;
    store.channels.addMessage(
      id,
      'notice',
      `▶️ ${spec.displayName} started in ${where} (session ${id.slice(0, 8)})`,
    );
  }
}

import { reapDeadSessions } from '../../sessions/session-liveness.js';
import { openStore } from '../../store/store.js';
import { paint, printJson, printTable, stdoutTarget, type OutputTarget } from '../output.js';

export function statusCommand(
  options: { all?: boolean; json?: boolean },
  target: OutputTarget = stdoutTarget,
): void {
  const store = openStore();
  try {
    reapDeadSessions(store);
    const sessions = store.sessions.list({ all: options.all ?? false });
    const open = store.prompts.open();
    const waiting = (id: string) => open.filter((p) => p.sessionId === id);
    if (options.json) {
      printJson(
        target,
        sessions.map((s) => ({
          ...s,
          startedAt: new Date(s.startedAt).toISOString(),
          endedAt: s.endedAt ? new Date(s.endedAt).toISOString() : null,
          pendingPrompts: waiting(s.id).length,
        })),
      );
      return;
    }
    if (sessions.length === 0) {
      target.write(
        options.all
          ? 'no sessions yet\n'
          : 'no agent sessions are running (agent-bridge status --all shows past ones)\n',
      );
      return;
    }
    // Many machines: which one runs each session (a hub lists its nodes' sessions too).
    const machines = sessions.some((s) => s.node !== null);
    printTable(
      target,
      ['SESSION', ...(machines ? ['MACHINE'] : []), 'AGENT', 'STATE', 'WAITING', 'STARTED', 'FOLDER'],
      sessions.map((s) => [
        s.id.slice(0, 8),
        ...(machines ? [s.host] : []),
        s.agent,
        s.status === 'active'
          ? paint(target, 'green', 'running')
          : s.status + (s.exitCode !== null ? ` (${s.exitCode})` : ''),
        waiting(s.id).length > 0 ? paint(target, 'bold', `${waiting(s.id).length} prompt`) : '-',
        new Date(s.startedAt).toISOString().replace('T', ' ').slice(0, 19),
        s.cwd,
      ]),
    );
  } finally {
    store.close();
  }
}

import { isProcessAlive } from '../../drivers/terminal/process-tree.js';
import { reapDeadSessions } from '../../sessions/session-liveness.js';
import type { SessionRecord } from '../../store/session-store.js';
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
    // Running with no agent-bridge controlling it (run --detach, its run killed, no serve): nobody applies its
    // prompts' timeouts, and an answer is typed by whoever answers (approvals answer takes it over).
    const attended = (s: SessionRecord) =>
      s.status === 'active' && store.sessions.controllerAlive(s, isProcessAlive);
    if (options.json) {
      printJson(
        target,
        sessions.map((s) => ({
          ...s,
          startedAt: new Date(s.startedAt).toISOString(),
          endedAt: s.endedAt ? new Date(s.endedAt).toISOString() : null,
          pendingPrompts: waiting(s.id).length,
          attended: s.status === 'active' ? attended(s) : null,
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
        s.status !== 'active'
          ? s.status + (s.exitCode !== null ? ` (${s.exitCode})` : '')
          : attended(s)
            ? paint(target, 'green', 'running')
            : paint(target, 'yellow', 'detached'),
        prompts(waiting(s.id).length, target),
        new Date(s.startedAt).toISOString().replace('T', ' ').slice(0, 19),
        s.cwd,
      ]),
    );
  } finally {
    store.close();
  }
}

function prompts(count: number, target: OutputTarget): string {
  return count > 0 ? paint(target, 'bold', `${count} ${count === 1 ? 'prompt' : 'prompts'}`) : '-';
}

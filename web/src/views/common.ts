import { api } from '../api.js';
import { confirmAction } from '../dialog.js';
import { h } from '../dom.js';
import { store } from '../store.js';
import type { Session, SessionState } from '../types.js';

/** Pieces several views share. */

const STATE_LABELS: Record<SessionState, string> = {
  busy: 'busy',
  waiting: 'waiting for you',
  idle: 'idle',
  running: 'running',
  exited: 'exited',
};

export function stateBadge(state: SessionState, testid?: string): HTMLElement {
  return h('span', { class: `state state-${state}`, 'data-state': state, 'data-testid': testid }, [
    STATE_LABELS[state] ?? state,
  ]);
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** An empty-state or loading line. */
export function note(text: string, testid?: string): HTMLElement {
  return h('p', { class: 'note', 'data-testid': testid }, [text]);
}

export { KIND_TITLES } from '../../../src/channels/view-types.js';

/** One button for both: a running session restarts, an ended one starts again (same agent, same folder). */
export function restartLabel(session: Session | undefined): string {
  return session?.state === 'exited' ? 'Start again' : 'Restart';
}

/** What a stop does to the agent (as `agent-bridge stop`: its process group). */
const STOP_SIGNALS = 'gets SIGHUP and SIGTERM (SIGKILL 5 s later)';

/** Stops a session once the person confirmed it; false when they did not. */
export async function stopWithConfirmation(session: Session): Promise<boolean> {
  const sure = await confirmAction(
    `Stop ${session.name}?`,
    `${session.agent} in ${session.cwd} ${STOP_SIGNALS}. Its recording is kept.`,
    'Stop',
  );
  if (!sure) return false;
  await api.stop(session.id);
  void store.refreshSessions();
  return true;
}

/**
 * Whether to restart (or start again) a session: a running one is stopped first, so the person is asked as
 * for Stop (a stray tap on a phone must not kill a working agent); an ended one starts again without a word.
 */
export function confirmRestart(session: Session): Promise<boolean> {
  if (session.state === 'exited') return Promise.resolve(true);
  return confirmAction(
    `Restart ${session.name}?`,
    `${session.agent} in ${session.cwd} ${STOP_SIGNALS}, then starts again as a new session. Its recording is kept.`,
    'Restart',
  );
}

/** A running session this page cannot show the terminal of: on another machine, or in a process it cannot reach. */
export function runsElsewhere(session: Session | undefined): boolean {
  return !!session && session.state !== 'exited' && !session.live && !session.conversation;
}

/** Where such a session runs, for people: "This session runs on node-b: its terminal is not shown here." */
export function elsewhereText(session: Session): string {
  const here = store.config?.host;
  return session.host && session.host !== here
    ? `This session runs on ${session.host}: its terminal is not shown here.`
    : 'This session runs where this page cannot show it.';
}

/** "exited (code 3)", "crashed", "stopped" for an ended session. */
export function endedText(session: Session): string {
  const ended = session.ended;
  if (!ended) return '';
  const how =
    ended.status === 'terminated' ? 'stopped' : ended.status === 'crashed' ? 'ended with an error' : 'ended';
  return ended.exitCode !== null && ended.exitCode !== 0 ? `${how} (code ${ended.exitCode})` : how;
}

import { h } from '../dom.js';
import type { SessionState } from '../types.js';

/** Pieces several views share. */

const STATE_LABELS: Record<SessionState, string> = {
  busy: 'busy',
  waiting: 'waiting for you',
  idle: 'idle',
  exited: 'exited',
};

export function stateBadge(state: SessionState): HTMLElement {
  return h('span', { class: `state state-${state}`, 'data-state': state }, [STATE_LABELS[state] ?? state]);
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** An empty-state or loading line. */
export function note(text: string, testid?: string): HTMLElement {
  return h('p', { class: 'note', 'data-testid': testid }, [text]);
}

import { promptHeadline } from '../../src/core/prompt-headline.js';
import { wsUrl } from './api.js';
import { notifyPrompt } from './notify.js';
import { go } from './router.js';
import { ReconnectingSocket } from './socket.js';
import { store } from './store.js';
import { notifyPromptWaiting } from './toast.js';
import type { EventFrame, Prompt } from './types.js';
import { KIND_TITLES } from './views/common.js';

/** /ws/events: refetch the lists it says changed, and announce each new prompt (toast and notification). */
export function connectEvents(): ReconnectingSocket {
  let pending = new Set<'sessions' | 'prompts'>();
  let timer: number | undefined;
  // Several events in a burst make one fetch per list.
  const refetch = (what: 'sessions' | 'prompts'): void => {
    pending.add(what);
    if (timer !== undefined) return;
    timer = window.setTimeout(() => {
      timer = undefined;
      const due = pending;
      pending = new Set();
      if (due.has('sessions')) void store.refreshSessions();
      if (due.has('prompts')) void store.refreshPrompts();
    }, 80);
  };
  const socket: ReconnectingSocket = new ReconnectingSocket(wsUrl('/ws/events'), {
    onOpen() {
      store.setStatus({ live: true });
      // Whatever changed while we were away.
      void store.refreshAll();
    },
    onMessage(event) {
      socket.markHealthy();
      if (typeof event.data !== 'string') return;
      let frame: EventFrame;
      try {
        frame = JSON.parse(event.data) as EventFrame;
      } catch {
        return;
      }
      if (frame.type === 'sessions') refetch('sessions');
      else if (frame.type === 'prompts') refetch('prompts');
      else if (frame.type === 'prompt') {
        refetch('prompts');
        refetch('sessions');
        announce(frame.prompt);
      }
    },
    onDown() {
      store.setStatus({ live: false });
    },
  });
  return socket;
}

/** A new prompt: one notice for it (gone once it is resolved), and a browser notification if allowed. */
function announce(prompt: Prompt): void {
  const where = [prompt.origin.agent, prompt.origin.label].filter(Boolean).join(' · ');
  const excerpt = promptHeadline(prompt.excerpt, 120);
  notifyPromptWaiting({
    id: prompt.id,
    sessionId: prompt.sessionId,
    text: `${where}: ${KIND_TITLES[prompt.kind] ?? prompt.kind} — ${excerpt}`,
    open: () => go({ name: 'inbox' }),
  });
  void notifyPrompt(prompt);
}

import { api } from '../api.js';
import { button, h, replace } from '../dom.js';
import { LiveTerminal, type LinkStatus } from '../live-terminal.js';
import { go, href } from '../router.js';
import { store } from '../store.js';
import { toast } from '../toast.js';
import { errorText, stateBadge } from './common.js';

/** #/session/<id>: the live terminal, with copy/paste, a key bar for phones, stop and restart. */

type KeyName = Parameters<LiveTerminal['key']>[0];

const KEYS: Array<[KeyName, string, string]> = [
  ['esc', 'Esc', 'Escape'],
  ['tab', 'Tab', 'Tab'],
  ['shift-tab', '⇧Tab', 'Shift+Tab'],
  ['ctrl-c', '^C', 'Control+C'],
  ['left', '←', 'Left'],
  ['up', '↑', 'Up'],
  ['down', '↓', 'Down'],
  ['right', '→', 'Right'],
  ['enter', '⏎', 'Enter'],
];

export function sessionView(root: HTMLElement, id: string): () => void {
  const title = h('div', { class: 'session-title' });
  const link = h('span', { class: 'link-status', 'data-testid': 'link-status', role: 'status' });
  const strip = h('div', { class: 'prompt-strip', hidden: true });
  const banner = h('div', { class: 'exit-banner', 'data-testid': 'exit-banner', role: 'status', hidden: true });
  const box = h('div', { class: 'terminal-box', 'data-testid': 'terminal' });

  const copy = async (): Promise<void> => {
    try {
      if (!(await live.copySelection())) toast('Select some text in the terminal first.');
      else toast('Copied.', { kind: 'ok', timeoutMs: 2000 });
    } catch (error) {
      toast(`Copy failed: ${errorText(error)}`, { kind: 'error' });
    }
  };
  const paste = async (): Promise<void> => {
    try {
      await live.pasteFromClipboard();
    } catch (error) {
      toast(`Paste with Ctrl+Shift+V (or your browser's Paste) instead: ${errorText(error)}`, { kind: 'error' });
    }
    live.focus();
  };
  const stop = async (): Promise<void> => {
    try {
      await api.stop(id);
      toast('Stopped.', { kind: 'ok' });
      void store.refreshSessions();
    } catch (error) {
      toast(`Stop failed: ${errorText(error)}`, { kind: 'error' });
    }
  };
  const restart = async (): Promise<void> => {
    try {
      const session = await api.restart(id);
      void store.refreshSessions();
      go({ name: 'session', id: session.id });
    } catch (error) {
      toast(`Restart failed: ${errorText(error)}`, { kind: 'error' });
    }
  };

  const keybar = h(
    'div',
    { class: 'keybar', role: 'toolbar', 'aria-label': 'Special keys' },
    KEYS.map(([name, label, aria]) => {
      const key = button(label, { class: 'key', 'aria-label': aria, 'data-testid': `key-${name}` }, () =>
        live.key(name),
      );
      // Keep the focus (and a phone's keyboard) where it is.
      key.addEventListener('mousedown', (event) => event.preventDefault());
      return key;
    }),
  );

  const section = h('section', { class: 'view view-session', 'aria-label': 'Live terminal' }, [
    h('div', { class: 'session-bar' }, [
      h('a', { class: 'btn btn-quiet', href: href({ name: 'dashboard' }), 'aria-label': 'Back to sessions' }, [
        '←',
      ]),
      title,
      link,
      h('div', { class: 'session-actions' }, [
        button('Copy', { class: 'btn btn-small', 'data-testid': 'copy' }, () => void copy()),
        button('Paste', { class: 'btn btn-small', 'data-testid': 'paste' }, () => void paste()),
        button('Stop', { class: 'btn btn-small btn-danger', 'data-testid': `stop-${id}` }, () => void stop()),
        button('Restart', { class: 'btn btn-small', 'data-testid': `restart-${id}` }, () => void restart()),
      ]),
    ]),
    strip,
    banner,
    box,
    keybar,
  ]);
  replace(root, [section]);
  root.classList.add('fill');

  const showBanner = (text: string, withReconnect: boolean): void => {
    const session = store.session(id);
    replace(banner, [
      h('span', {}, [text]),
      withReconnect ? button('Try again', { class: 'btn btn-small' }, () => live.reconnectNow()) : null,
      button('Restart', { class: 'btn btn-small' }, () => void restart()),
      session?.recording
        ? h('a', { class: 'btn btn-small', href: href({ name: 'recording', id: session.recording }) }, [
            'Recording',
          ])
        : null,
    ]);
    banner.hidden = false;
  };

  const live = new LiveTerminal(box, id, {
    onStatus(status: LinkStatus) {
      link.dataset.state = status.state;
      link.textContent =
        status.state === 'reconnecting' ? `reconnecting in ${Math.ceil(status.inMs / 1000)} s…` : status.state;
      if (status.state === 'live' && banner.dataset.kind !== 'exit') banner.hidden = true;
      if (status.state === 'ended' && banner.dataset.kind !== 'exit') {
        const session = store.session(id);
        showBanner(
          !session
            ? 'No such session.'
            : session.state === 'exited'
              ? 'The session has ended.'
              : 'This session has no live terminal here.',
          true,
        );
      }
    },
    onExit({ exitCode, signal }) {
      banner.dataset.kind = 'exit';
      showBanner(`Exited${signal ? ` (signal ${signal})` : exitCode !== null ? ` (code ${exitCode})` : ''}.`, false);
      void store.refreshSessions();
    },
    async shouldReconnect() {
      await store.refreshSessions();
      if (store.status.error) return true; // the server is unreachable: keep trying
      const session = store.session(id);
      return !!session && session.state !== 'exited' && session.live;
    },
  });

  const renderSession = (): void => {
    const session = store.session(id);
    replace(title, [
      h('strong', {}, [session?.agent ?? 'session']),
      ' ',
      h('span', { class: 'muted' }, [session?.label || session?.cwd || id]),
      ' ',
      session ? stateBadge(session.state) : null,
    ]);
    document.title = `${session?.agent ?? 'session'} — agent-bridge`;
  };
  const renderPrompts = (): void => {
    const prompts = store.prompts.filter((p) => p.sessionId === id);
    strip.hidden = prompts.length === 0;
    const first = prompts[0];
    replace(strip, [
      first ? h('span', { class: 'prompt-strip-text' }, [`Waiting for you: ${first.excerpt}`]) : null,
      h('a', { class: 'btn btn-small btn-primary', href: href({ name: 'inbox' }) }, [
        prompts.length > 1 ? `Answer (${prompts.length})` : 'Answer',
      ]),
    ]);
  };
  renderSession();
  renderPrompts();
  const offSessions = store.on('sessions', renderSession);
  const offPrompts = store.on('prompts', renderPrompts);
  live.focus();

  return () => {
    offSessions();
    offPrompts();
    live.dispose();
    root.classList.remove('fill');
  };
}

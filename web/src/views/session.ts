import { api } from '../api.js';
import { button, h, replace } from '../dom.js';
import { LiveTerminal, type LinkStatus, type LiveTerminalHooks } from '../live-terminal.js';
import { go, href } from '../router.js';
import { store } from '../store.js';
import { toast } from '../toast.js';
import type { Session } from '../types.js';
import { recordingId } from '../format.js';
import { errorText, restartLabel, restartSession, stateBadge } from './common.js';

/** #/session/<id>: the live terminal, with copy/paste, a key bar for phones, stop and restart. */

/** The close code the server gives when the session has no live terminal to attach to. */
const NO_SUCH_LIVE_SESSION = 4404;

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

interface Parts {
  title: HTMLElement;
  link: HTMLElement;
  strip: HTMLElement;
  banner: HTMLElement;
  box: HTMLElement;
}

export function sessionView(root: HTMLElement, id: string): () => void {
  const parts: Parts = {
    title: h('div', { class: 'session-title' }),
    link: h('span', { class: 'link-status', 'data-testid': 'link-status', role: 'status' }),
    strip: h('div', { class: 'prompt-strip', hidden: true }),
    banner: h('div', { class: 'exit-banner', 'data-testid': 'exit-banner', role: 'status', hidden: true }),
    box: h('div', { class: 'terminal-box', 'data-testid': 'terminal' }),
  };
  // The terminal is created once the elements it draws into are in the page; handlers only run after that.
  const ref: { live?: LiveTerminal } = {};
  const actions = new SessionActions(id, () => ref.live);
  replace(root, [layout(id, parts, actions, (name) => ref.live?.key(name))]);
  root.classList.add('fill');
  const live = new LiveTerminal(
    parts.box,
    id,
    terminalHooks(id, parts, actions, () => ref.live),
  );
  ref.live = live;

  const renderSession = (): void => {
    actions.update();
    renderTitle(parts.title, id, actions.known);
  };
  const renderPrompts = (): void => renderStrip(parts.strip, id);
  renderSession();
  renderPrompts();
  const offs = [store.on('sessions', renderSession), store.on('prompts', renderPrompts)];
  live.focus();

  return () => {
    offs.forEach((off) => off());
    live.dispose();
    root.classList.remove('fill');
  };
}

function layout(
  id: string,
  parts: Parts,
  actions: SessionActions,
  key: (name: KeyName) => void,
): HTMLElement {
  return h('section', { class: 'view view-session', 'aria-label': 'Live terminal' }, [
    h('div', { class: 'session-bar' }, [
      h(
        'a',
        { class: 'btn btn-quiet', href: href({ name: 'dashboard' }), 'aria-label': 'Back to sessions' },
        ['←'],
      ),
      parts.title,
      parts.link,
      h('div', { class: 'session-actions' }, [
        button('Copy', { class: 'btn btn-small', 'data-testid': 'copy' }, () => void actions.copy()),
        button('Paste', { class: 'btn btn-small', 'data-testid': 'paste' }, () => void actions.paste()),
        button(
          'Stop',
          { class: 'btn btn-small btn-danger', 'data-testid': `stop-${id}` },
          () => void actions.stop(),
        ),
        button(
          'Restart',
          { class: 'btn btn-small', 'data-testid': `restart-${id}` },
          () => void actions.restart(),
        ),
      ]),
    ]),
    parts.strip,
    parts.banner,
    parts.box,
    keyBar(key),
  ]);
}

function terminalHooks(
  id: string,
  { link, banner }: Parts,
  actions: SessionActions,
  live: () => LiveTerminal | undefined,
): LiveTerminalHooks {
  const showBanner = (text: string, canRetry: boolean): void => {
    const session = actions.known;
    const recording = session?.recording ? recordingId(session.recording) : null;
    replace(banner, [
      h('span', {}, [text]),
      canRetry ? button('Try again', { class: 'btn btn-small' }, () => live()?.reconnectNow()) : null,
      button(restartLabel(session), { class: 'btn btn-small' }, () => void actions.restart()),
      recording
        ? h('a', { class: 'btn btn-small', href: href({ name: 'recording', id: recording }) }, ['Recording'])
        : null,
    ]);
    banner.hidden = false;
  };
  return {
    onStatus(status: LinkStatus) {
      link.dataset.state = status.state;
      link.textContent =
        status.state === 'reconnecting'
          ? `reconnecting in ${Math.ceil(status.inMs / 1000)} s…`
          : status.state;
      if (banner.dataset.kind === 'exit') return;
      if (status.state === 'live') banner.hidden = true;
      if (status.state === 'ended') {
        if (!store.session(id)) actions.update(true); // no longer listed: it ended
        showBanner(endedText(actions.known), true);
      }
    },
    onExit({ exitCode, signal }) {
      banner.dataset.kind = 'exit';
      actions.update(true);
      const how = signal ? ` (signal ${signal})` : exitCode !== null ? ` (code ${exitCode})` : '';
      showBanner(`Exited${how}.`, false);
      void store.refreshSessions();
    },
    async shouldReconnect(code) {
      if (code === NO_SUCH_LIVE_SESSION) {
        await store.refreshSessions();
        return false;
      }
      await store.refreshSessions();
      if (store.status.error) return true; // the server is unreachable: keep trying
      const session = store.session(id);
      return !!session && session.state !== 'exited' && session.live;
    },
  };
}

class SessionActions {
  /** The session as last listed: the server may drop it from the list once it ends. */
  known: Session | undefined;

  constructor(
    private readonly id: string,
    private readonly terminal: () => LiveTerminal | undefined,
  ) {
    this.known = store.session(id);
  }

  /** Keeps the last listing, and notes an exit the list may not show yet. */
  update(exited = false): void {
    const listed = store.session(this.id);
    if (listed) this.known = listed;
    if (this.known && exited) this.known = { ...this.known, state: 'exited', live: false };
  }

  private live(): LiveTerminal {
    const live = this.terminal();
    if (!live) throw new Error('the terminal is not ready');
    return live;
  }

  async copy(): Promise<void> {
    try {
      if (!(await this.live().copySelection())) toast('Select some text in the terminal first.');
      else toast('Copied.', { kind: 'ok', timeoutMs: 2000 });
    } catch (error) {
      toast(`Copy failed: ${errorText(error)}`, { kind: 'error' });
    }
  }

  async paste(): Promise<void> {
    try {
      await this.live().pasteFromClipboard();
    } catch (error) {
      toast(`Paste with Ctrl+Shift+V (or the browser's Paste) instead: ${errorText(error)}`, {
        kind: 'error',
      });
    }
    this.live().focus();
  }

  async stop(): Promise<void> {
    try {
      await api.stop(this.id);
      toast('Stopped.', { kind: 'ok' });
      void store.refreshSessions();
    } catch (error) {
      toast(`Stop failed: ${errorText(error)}`, { kind: 'error' });
    }
  }

  async restart(): Promise<void> {
    try {
      const session = await restartSession(this.id, this.known);
      void store.refreshSessions();
      go({ name: 'session', id: session.id });
    } catch (error) {
      toast(`${restartLabel(this.known)} failed: ${errorText(error)}`, { kind: 'error' });
    }
  }
}

function keyBar(send: (name: KeyName) => void): HTMLElement {
  return h(
    'div',
    { class: 'keybar', role: 'toolbar', 'aria-label': 'Special keys' },
    KEYS.map(([name, label, aria]) => {
      const key = button(label, { class: 'key', 'aria-label': aria, 'data-testid': `key-${name}` }, () =>
        send(name),
      );
      // Keep the focus (and a phone's keyboard) where it is.
      key.addEventListener('mousedown', (event) => event.preventDefault());
      return key;
    }),
  );
}

function endedText(known: Session | undefined): string {
  if (!known) return 'No such session.';
  if (known.state === 'exited') return 'The session has ended.';
  return 'This session runs in another process: no live terminal here.';
}

function renderTitle(title: HTMLElement, id: string, known: Session | undefined): void {
  const session = store.session(id) ?? known;
  replace(title, [
    h('strong', {}, [session?.agent ?? 'session']),
    ' ',
    h('span', { class: 'muted' }, [session?.label || session?.cwd || id]),
    ' ',
    session ? stateBadge(session.state) : null,
  ]);
  const base = `${session?.agent ?? 'session'} — agent-bridge`;
  const count = store.prompts.length;
  document.title = count > 0 ? `(${count}) ${base}` : base;
}

function renderStrip(strip: HTMLElement, id: string): void {
  const prompts = store.prompts.filter((p) => p.sessionId === id);
  strip.hidden = prompts.length === 0;
  const first = prompts[0];
  replace(strip, [
    first ? h('span', { class: 'prompt-strip-text' }, [`Waiting for you: ${first.excerpt}`]) : null,
    h('a', { class: 'btn btn-small btn-primary', href: href({ name: 'inbox' }) }, [
      prompts.length > 1 ? `Answer (${prompts.length})` : 'Answer',
    ]),
  ]);
}

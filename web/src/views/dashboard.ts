import { api } from '../api.js';
import { button, h, reconcile, replace } from '../dom.js';
import { ago, baseName, splitArgs } from '../format.js';
import { href } from '../router.js';
import { store } from '../store.js';
import { toast } from '../toast.js';
import type { Session, ToolCard } from '../types.js';
import { errorText, note, stateBadge } from './common.js';
import { rememberFolder, recentFolders } from './folders.js';

/** #/: the sessions (open, stop, restart) and a card per agent to start a new one. */
export function dashboardView(root: HTMLElement): () => void {
  const sessionList = h('div', { class: 'list', 'data-testid': 'sessions' });
  const sessionsEmpty = note('Loading…');
  const found = h('div', { class: 'cards' });
  const missing = h('div', { class: 'cards' });
  const missingBox = h('details', { class: 'missing', hidden: true });
  const folders = h('datalist', { id: 'recent-folders' });
  const about = h('p', { class: 'muted small' });

  replace(root, [
    h('section', { class: 'view', 'aria-labelledby': 'sessions-title' }, [
      h('h2', { id: 'sessions-title' }, ['Sessions']),
      sessionList,
      sessionsEmpty,
      h('h2', {}, ['Start an agent']),
      found,
      missingBox,
      folders,
      about,
    ]),
  ]);

  const renderSessions = (): void => {
    const sessions = [...store.sessions].sort(
      (a, b) =>
        Number(a.state === 'exited') - Number(b.state === 'exited') ||
        Date.parse(b.startedAt) - Date.parse(a.startedAt),
    );
    sessionsEmpty.hidden = sessions.length > 0;
    sessionsEmpty.textContent = store.loaded.sessions ? 'No sessions yet: start one below.' : 'Loading…';
    reconcile(sessionList, sessions, (s) => s.id, sessionRow, (element, s) => {
      const signature = JSON.stringify(s);
      if (element.dataset.sig !== signature) return sessionRow(s);
    });
  };

  const renderTools = (): void => {
    const config = store.config;
    if (!config) return;
    const sig = (tool: ToolCard): string => JSON.stringify(tool) + config.cwd;
    const update = (element: HTMLElement, tool: ToolCard): HTMLElement | void => {
      if (element.dataset.sig !== sig(tool)) return toolCard(tool, config.cwd, sig(tool));
    };
    const make = (tool: ToolCard): HTMLElement => toolCard(tool, config.cwd, sig(tool));
    reconcile(found, config.agents.filter((t) => t.found), (t) => t.id, make, update);
    const absent = config.agents.filter((t) => !t.found);
    reconcile(missing, absent, (t) => t.id, make, update);
    missingBox.hidden = absent.length === 0;
    if (!missingBox.firstElementChild) missingBox.append(h('summary', {}, []), missing);
    missingBox.firstElementChild!.textContent = `Not installed (${absent.length})`;
    about.textContent = `agent-bridge ${config.version} on ${config.host}`;
    renderFolders();
  };

  const renderFolders = (): void => {
    const options = recentFolders([store.config?.cwd, ...store.sessions.map((s) => s.cwd)]);
    replace(
      folders,
      options.map((folder) => h('option', { value: folder })),
    );
  };

  renderSessions();
  renderTools();
  const offs = [
    store.on('sessions', renderSessions),
    store.on('config', renderTools),
    store.on('status', () => {
      if (!store.loaded.sessions && store.status.error) sessionsEmpty.textContent = store.status.error;
    }),
  ];
  return () => offs.forEach((off) => off());
}

function sessionRow(session: Session): HTMLElement {
  const { id } = session;
  const act = async (what: 'stop' | 'restart', target: HTMLButtonElement): Promise<void> => {
    target.disabled = true;
    try {
      if (what === 'stop') await api.stop(id);
      else {
        const next = await api.restart(id);
        toast(`Restarted ${next.agent}.`, {
          kind: 'ok',
          actions: [{ label: 'Open', run: () => (location.hash = href({ name: 'session', id: next.id })) }],
        });
      }
      void store.refreshSessions();
    } catch (error) {
      toast(`${what === 'stop' ? 'Stop' : 'Restart'} failed: ${errorText(error)}`, { kind: 'error' });
    } finally {
      target.disabled = false;
    }
  };
  const exited = session.state === 'exited';
  const row = h('article', { class: 'card session-row', 'data-testid': `session-row-${id}` }, [
    h('div', { class: 'row-main' }, [
      h('div', { class: 'row-title' }, [
        h('strong', {}, [session.agent]),
        h('span', { class: 'label' }, [session.label || baseName(session.cwd)]),
        stateBadge(session.state),
        session.pendingPrompts > 0
          ? h('a', { class: 'pill', href: href({ name: 'inbox' }), 'data-testid': `pending-${id}` }, [
              `${session.pendingPrompts} waiting`,
            ])
          : null,
      ]),
      h('div', { class: 'row-sub' }, [
        h('span', { class: 'mono' }, [session.cwd]),
        ` · started ${ago(session.startedAt)}`,
        store.config && session.host !== store.config.host ? ` · ${session.host}` : '',
      ]),
    ]),
    h('div', { class: 'row-actions' }, [
      session.live
        ? h(
            'a',
            { class: 'btn btn-primary', href: href({ name: 'session', id }), 'data-testid': `open-${id}` },
            ['Open'],
          )
        : h('button', { class: 'btn', type: 'button', disabled: true, 'data-testid': `open-${id}` }, [
            'Open',
          ]),
      exited
        ? null
        : button('Stop', { class: 'btn btn-danger', 'data-testid': `stop-${id}` }, (event) =>
            act('stop', event.currentTarget as HTMLButtonElement),
          ),
      button('Restart', { class: 'btn', 'data-testid': `restart-${id}` }, (event) =>
        act('restart', event.currentTarget as HTMLButtonElement),
      ),
      session.recording
        ? h(
            'a',
            { class: 'btn btn-quiet', href: href({ name: 'recording', id: session.recording }) },
            ['Replay'],
          )
        : null,
    ]),
  ]);
  row.dataset.key = id;
  row.dataset.sig = JSON.stringify(session);
  return row;
}

function toolCard(tool: ToolCard, cwd: string, signature: string): HTMLElement {
  const folderId = `folder-input-${tool.id}`;
  const argsId = `args-input-${tool.id}`;
  const folder = h('input', {
    id: folderId,
    name: 'cwd',
    value: cwd,
    list: 'recent-folders',
    autocomplete: 'off',
    autocapitalize: 'off',
    spellcheck: 'false',
    required: true,
    'data-testid': `folder-${tool.id}`,
  });
  const args = h('input', {
    id: argsId,
    name: 'args',
    autocomplete: 'off',
    autocapitalize: 'off',
    spellcheck: 'false',
    placeholder: tool.id === 'custom' ? 'command and its arguments' : 'e.g. --model sonnet',
    'data-testid': `args-${tool.id}`,
  });
  const error = h('p', { class: 'form-error', role: 'alert' });
  const start = h('button', { type: 'submit', class: 'btn btn-primary', 'data-testid': `start-${tool.id}` }, [
    'Start',
  ]);
  start.disabled = !tool.found;
  const form = h('form', { class: 'start-form' }, [
    h('label', { for: folderId }, ['Folder']),
    folder,
    h('label', { for: argsId }, ['Arguments (optional)']),
    args,
    start,
    error,
  ]);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void submit();
  });
  const submit = async (): Promise<void> => {
    error.textContent = '';
    let argv: string[];
    try {
      argv = splitArgs(args.value);
    } catch (problem) {
      error.textContent = errorText(problem);
      return;
    }
    start.disabled = true;
    try {
      const session = await api.start(tool.id, folder.value.trim(), argv);
      rememberFolder(folder.value.trim());
      toast(`Started ${tool.name} in ${baseName(session.cwd)}.`, {
        kind: 'ok',
        actions: [{ label: 'Open', run: () => (location.hash = href({ name: 'session', id: session.id })) }],
      });
      void store.refreshSessions();
    } catch (problem) {
      error.textContent = errorText(problem);
    } finally {
      start.disabled = !tool.found;
    }
  };
  const card = h('article', { class: 'card tool-card', 'data-testid': `tool-card-${tool.id}` }, [
    h('div', { class: 'card-head' }, [
      h('h3', {}, [tool.name]),
      h('span', { class: tool.found ? 'tag tag-ok' : 'tag' }, [tool.found ? 'installed' : 'not found']),
    ]),
    tool.description ? h('p', { class: 'muted' }, [tool.description]) : null,
    tool.found && tool.path
      ? h('p', { class: 'mono small muted path' }, [tool.path])
      : h('p', { class: 'mono small hint' }, [tool.installHint]),
    form,
  ]);
  card.dataset.key = tool.id;
  card.dataset.sig = signature;
  return card;
}

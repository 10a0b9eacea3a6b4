import { button, h, reconcile, replace } from '../dom.js';
import { store } from '../store.js';
import type { Session, ToolCard } from '../types.js';
import { note } from './common.js';
import { recentFolders } from './folders.js';
import { rowSignature, sessionRow } from './session-row.js';
import { toolCard } from './tool-card.js';

/** Ended sessions shown before "Show all": the server lists the newest 200. */
const ENDED_SHOWN = 5;

interface Part {
  elements: HTMLElement[];
  render(): void;
}

/** #/: the sessions (open, stop, restart) and a card per agent to start a new one. */
export function dashboardView(root: HTMLElement): () => void {
  const sessions = sessionsPart();
  const tools = toolsPart();
  replace(root, [
    h('section', { class: 'view', 'aria-labelledby': 'sessions-title' }, [
      h('h1', { id: 'sessions-title' }, ['Sessions']),
      ...sessions.elements,
      h('h2', { id: 'start-title' }, ['Start an agent']),
      ...tools.elements,
    ]),
  ]);
  sessions.render();
  tools.render();
  const offs = [
    store.on('sessions', sessions.render),
    store.on('config', tools.render),
    // A row names the machine of a session of another one: this machine's name comes with the configuration.
    store.on('config', sessions.render),
    store.on('status', sessions.render),
  ];
  return () => offs.forEach((off) => off());
}

function sessionsPart(): Part {
  const running = h('div', { class: 'list', 'data-testid': 'sessions' });
  const ended = h('div', { class: 'list', 'data-testid': 'ended-sessions' });
  const endedTitle = h('h2', { hidden: true }, ['Ended']);
  const empty = note('Loading…');
  let showAllEnded = false;
  const more = button('', { class: 'btn btn-quiet', 'data-testid': 'show-ended', hidden: true }, () => {
    showAllEnded = !showAllEnded;
    render();
  });
  const rows = (list: HTMLElement, sessions: Session[]) =>
    reconcile(
      list,
      sessions,
      (s) => s.id,
      sessionRow,
      (element, s) => (element.dataset.sig === rowSignature(s) ? element : sessionRow(s)),
    );
  const render = (): void => {
    const all = [...store.sessions].sort((a, b) => Date.parse(b.startedAt) - Date.parse(a.startedAt));
    const live = all.filter((s) => s.state !== 'exited');
    const gone = all.filter((s) => s.state === 'exited');
    more.hidden = gone.length <= ENDED_SHOWN;
    more.textContent = showAllEnded ? 'Show fewer ended sessions' : `Show all ${gone.length} ended sessions`;
    endedTitle.hidden = gone.length === 0;
    empty.hidden = live.length > 0;
    empty.textContent = store.loaded.sessions
      ? 'Nothing running: start an agent below.'
      : (store.status.error ?? 'Loading…');
    rows(running, live);
    rows(ended, showAllEnded ? gone : gone.slice(0, ENDED_SHOWN));
  };
  return { elements: [h('h2', {}, ['Running']), running, empty, endedTitle, ended, more], render };
}

function toolsPart(): Part {
  const found = h('div', { class: 'cards' });
  const missing = h('div', { class: 'cards' });
  const summary = h('summary', {}, []);
  const missingBox = h('details', { class: 'missing', hidden: true }, [summary, missing]);
  const folders = h('datalist', { id: 'recent-folders' });
  const about = h('p', { class: 'muted small' });
  const render = (): void => {
    const config = store.config;
    if (!config) return;
    const sig = (tool: ToolCard): string => JSON.stringify(tool) + config.cwd;
    const make = (tool: ToolCard): HTMLElement => toolCard(tool, config.cwd, sig(tool));
    const update = (element: HTMLElement, tool: ToolCard): HTMLElement =>
      element.dataset.sig === sig(tool) ? element : make(tool);
    const absent = config.agents.filter((t) => !t.found);
    reconcile(
      found,
      config.agents.filter((t) => t.found),
      (t) => t.id,
      make,
      update,
    );
    reconcile(missing, absent, (t) => t.id, make, update);
    missingBox.hidden = absent.length === 0;
    summary.textContent = `Not installed (${absent.length})`;
    about.textContent = `agent-bridge ${config.version} on ${config.host}`;
    const options = recentFolders([config.cwd, ...store.sessions.map((s) => s.cwd)]);
    replace(
      folders,
      options.map((folder) => h('option', { value: folder })),
    );
  };
  return { elements: [found, missingBox, folders, about], render };
}

import { api } from '../api.js';
import { button, h } from '../dom.js';
import { splitArgs } from '../format.js';
import { href, sessionRoute } from '../router.js';
import { store } from '../store.js';
import type { Session, ToolCard } from '../types.js';
import { toast } from '../toast.js';
import { elsewhereText, errorText, runsElsewhere } from './common.js';
import { pickFolder } from './folder-picker.js';
import { rememberFolder } from './folders.js';

/** An agent found (or not) on this machine, with a form to start it in a folder (a custom card: any command). */
const ARG_HINTS: Record<string, string> = {
  claude: 'e.g. --model sonnet',
  custom: 'e.g. python3 -i',
};

export function toolCard(tool: ToolCard, cwd: string, signature: string): HTMLElement {
  const folderId = `folder-input-${tool.id}`;
  const argsId = `args-input-${tool.id}`;
  const plain = { autocomplete: 'off', autocapitalize: 'off', spellcheck: 'false' };
  const folder = h('input', {
    id: folderId,
    name: 'cwd',
    value: cwd,
    list: 'recent-folders',
    required: true,
    'data-testid': `folder-${tool.id}`,
    ...plain,
  });
  const custom = tool.id === 'custom';
  const args = h('input', {
    id: argsId,
    name: 'args',
    required: custom,
    placeholder: ARG_HINTS[tool.id] ?? '',
    'data-testid': `args-${tool.id}`,
    ...plain,
  });
  const machine = machineSelect(tool);
  const error = h('p', { class: 'form-error', role: 'alert' });
  const start = h('button', { type: 'submit', class: 'btn btn-primary', 'data-testid': `start-${tool.id}` }, [
    'Start',
  ]);
  const choose = folderButton(tool.id, folder, cwd);
  const usable = startable(tool, machine, start, choose);
  const form = h('form', { class: 'start-form' }, [
    ...(machine ? [h('label', { for: machine.id }, ['Machine']), machine] : []),
    h('label', { for: folderId }, ['Folder']),
    h('div', { class: 'folder-row' }, [folder, choose]),
    h('label', { for: argsId }, [custom ? 'Command' : 'Arguments (optional)']),
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
      const session = await api.start(tool.id, folder.value.trim(), argv, machine?.value || undefined);
      rememberFolder(folder.value.trim());
      void store.refreshSessions();
      showStarted(session);
    } catch (problem) {
      error.textContent = errorText(problem);
    } finally {
      start.disabled = !usable();
    }
  };
  const card = h('article', { class: 'card tool-card', 'data-testid': `tool-card-${tool.id}` }, [
    h('div', { class: 'card-head' }, [
      h('h3', {}, [tool.name]),
      h('span', { class: tool.found ? 'tag tag-ok' : 'tag' }, [
        custom ? 'any command' : tool.found ? 'installed' : 'not found',
      ]),
    ]),
    tool.description ? h('p', { class: 'muted' }, [tool.description]) : null,
    tool.found && tool.path
      ? h('p', { class: 'mono small muted path' }, [tool.path])
      : h('p', { class: custom ? 'small muted' : 'mono small hint' }, [tool.installHint]),
    form,
  ]);
  card.dataset.key = tool.id;
  card.dataset.sig = signature;
  return card;
}

/**
 * Starting an agent means wanting to see it: straight to its terminal (or its conversation), unless it runs
 * where this page cannot show it (another machine of the cluster): then it is said so, and its row is listed.
 */
function showStarted(session: Session): void {
  if (runsElsewhere(session)) toast(`Started ${session.name}. ${elsewhereText(session)}`, { kind: 'ok' });
  else location.hash = href(sessionRoute(session));
}

/**
 * Whether it can start where chosen. On another machine of the cluster the agent is that machine's (not known
 * here), and so is the folder: typed, not picked from this machine's.
 */
function startable(
  tool: ToolCard,
  machine: HTMLSelectElement | null,
  start: HTMLButtonElement,
  choose: HTMLButtonElement,
): () => boolean {
  const usable = () => (machine?.value ? true : tool.found);
  start.disabled = !usable();
  machine?.addEventListener('change', () => {
    start.disabled = !usable();
    choose.disabled = Boolean(machine.value);
  });
  return usable;
}

/** Where to start it, when this server is a cluster hub with nodes: this machine, or one of them. */
function machineSelect(tool: ToolCard): HTMLSelectElement | null {
  const nodes = store.config?.nodes ?? [];
  if (nodes.length === 0) return null;
  const options = nodes.map((node) => {
    const installed = tool.id === 'custom' || node.agents.includes(tool.id);
    const notes = [node.online ? null : 'away', installed ? null : 'not installed there'].filter(Boolean);
    return h('option', { value: node.name }, [
      notes.length ? `${node.name} (${notes.join(', ')})` : node.name,
    ]);
  });
  return h('select', { id: `machine-input-${tool.id}`, name: 'node', 'data-testid': `machine-${tool.id}` }, [
    h('option', { value: '' }, [`this machine (${store.config?.host ?? 'here'})`]),
    ...options,
  ]);
}

/** "Choose…": the folder picker, whose choice fills the folder field. */
function folderButton(id: string, folder: HTMLInputElement, cwd: string): HTMLButtonElement {
  return button('Choose…', { class: 'btn btn-small', 'data-testid': `choose-folder-${id}` }, () => {
    void pickFolder(folder.value.trim() || cwd).then((picked) => {
      if (picked) folder.value = picked;
      folder.focus();
    });
  });
}

import { api } from '../api.js';
import { h } from '../dom.js';
import { baseName, splitArgs } from '../format.js';
import { href } from '../router.js';
import { store } from '../store.js';
import { toast } from '../toast.js';
import type { ToolCard } from '../types.js';
import { errorText } from './common.js';
import { rememberFolder } from './folders.js';

/** An agent found (or not) on this machine, with a form to start it in a folder. */
const ARG_HINTS: Record<string, string> = {
  claude: 'e.g. --model sonnet',
  custom: 'the command and its arguments',
};

export function toolCard(tool: ToolCard, cwd: string, signature: string): HTMLElement {
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
    placeholder: ARG_HINTS[tool.id] ?? '',
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
      toast(`Started ${tool.name} in ${baseName(session.cwd)}.`, { kind: 'ok' });
      void store.refreshSessions();
      // Starting an agent means wanting to see it: go straight to its terminal.
      location.hash = href({ name: 'session', id: session.id });
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

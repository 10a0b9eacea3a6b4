import { api } from '../api.js';
import { button, h, replace } from '../dom.js';
import { bytes } from '../format.js';
import { href, sessionRoute } from '../router.js';
import { store } from '../store.js';
import type { FolderChanges, FolderListing } from '../types.js';
import { errorText, note } from './common.js';
import { diffBlock } from './diff-block.js';

/**
 * #/session/<id>/files: the session's folder, read-only: its files (a folder at a time, a text file shown
 * whole) and what changed in it (git status and diff). The server keeps every path inside the folder.
 */
export function filesView(root: HTMLElement, id: string): () => void {
  const heading = h('h1', { id: 'files-title', 'data-testid': 'files-title' });
  const where = h('p', { class: 'mono small muted', 'data-testid': 'files-folder' });
  const back = h('a', { class: 'btn btn-quiet' });
  // Opened by a link or a reload, the page comes before the session list: it names the session once it is known.
  const describe = (): void => {
    const session = store.session(id);
    heading.textContent = `Files of ${session?.name ?? 'the session'}`;
    where.textContent = session?.cwd ?? '';
    back.href = href(session ? sessionRoute(session) : { name: 'session', id });
    back.textContent = session?.conversation && !session.live ? '← Conversation' : '← Terminal';
  };
  describe();
  const off = store.on('sessions', describe);
  const filesTab = button(
    'Files',
    { class: 'btn btn-small', 'aria-pressed': 'true', 'data-testid': 'tab-files' },
    () => show('files'),
  );
  const changesTab = button(
    'Changes',
    { class: 'btn btn-small', 'aria-pressed': 'false', 'data-testid': 'tab-changes' },
    () => show('changes'),
  );
  const body = h('div', { class: 'files-body' });
  replace(root, [
    h('section', { class: 'view', 'aria-labelledby': 'files-title' }, [
      h('div', { class: 'view-head' }, [back, heading]),
      where,
      h('div', { class: 'tabs', role: 'group', 'aria-label': 'Show' }, [filesTab, changesTab]),
      body,
    ]),
  ]);
  let alive = true;
  const show = (what: 'files' | 'changes', folder = ''): void => {
    filesTab.setAttribute('aria-pressed', String(what === 'files'));
    changesTab.setAttribute('aria-pressed', String(what === 'changes'));
    replace(body, [note('Loading…')]);
    const load =
      what === 'files'
        ? api.files(id, folder).then((listing) => folderPart(id, listing, (next) => show('files', next)))
        : api.changes(id).then(changesPart);
    load
      .then((part) => alive && replace(body, [part]))
      .catch((error: unknown) => alive && replace(body, [note(`Cannot show it: ${errorText(error)}`)]));
  };
  show('files');
  return () => {
    alive = false;
    off();
  };
}

function folderPart(id: string, listing: FolderListing, open: (folder: string) => void): HTMLElement {
  const viewer = h('div', { class: 'file-viewer' });
  const parts = listing.path ? listing.path.split('/') : [];
  const crumbs = h('nav', { class: 'crumbs', 'aria-label': 'Folder' }, [
    button('(top)', { class: 'btn btn-small btn-quiet', 'data-testid': 'crumb-top' }, () => open('')),
    ...parts.map((part, i) =>
      button(`/ ${part}`, { class: 'btn btn-small btn-quiet' }, () => open(parts.slice(0, i + 1).join('/'))),
    ),
  ]);
  const join = (name: string) => (listing.path ? `${listing.path}/${name}` : name);
  const showFile = async (name: string): Promise<void> => {
    replace(viewer, [note('Loading…')]);
    try {
      const file = await api.file(id, join(name));
      replace(viewer, [
        h('h2', { class: 'file-name mono' }, [file.path]),
        h('pre', { class: 'file-text', tabindex: 0, 'data-testid': 'file-text' }, [file.text]),
      ]);
    } catch (error) {
      replace(viewer, [note(errorText(error), 'file-error')]);
    }
  };
  const entries = h(
    'ul',
    { class: 'file-list', 'data-testid': 'file-list' },
    listing.entries.map((entry) =>
      h('li', {}, [
        button(
          [
            h('span', { 'aria-hidden': 'true' }, [
              entry.type === 'folder' ? '📁 ' : entry.type === 'link' ? '↪ ' : '📄 ',
            ]),
            entry.name,
            entry.size !== null ? h('span', { class: 'muted small' }, [` ${bytes(entry.size)}`]) : null,
          ],
          { class: 'btn btn-small btn-quiet file-entry', 'data-testid': `entry-${entry.name}` },
          () => (entry.type === 'folder' ? open(join(entry.name)) : void showFile(entry.name)),
        ),
      ]),
    ),
  );
  return h('div', { class: 'files-folder' }, [
    crumbs,
    listing.entries.length === 0 ? note('This folder is empty.') : entries,
    listing.truncated ? note('Only the first 1000 entries are shown.') : null,
    viewer,
  ]);
}

function changesPart(changes: FolderChanges): HTMLElement {
  if (!changes.repository) return note('This folder is not in a git repository.', 'changes-none');
  if (changes.files.length === 0) return note('No changes since the last commit.', 'changes-none');
  return h('div', { class: 'changes' }, [
    h(
      'ul',
      { class: 'file-list', 'data-testid': 'changed-files' },
      changes.files.map((file) =>
        h('li', {}, [
          h('span', { class: 'mono status-code' }, [file.status]),
          ' ',
          h('span', { class: 'mono' }, [file.path]),
        ]),
      ),
    ),
    diffBlock(changes.diff, { 'aria-label': 'Diff', 'data-testid': 'diff' }),
    changes.truncated ? note('The diff is cut: it is too long to show whole.') : null,
  ]);
}

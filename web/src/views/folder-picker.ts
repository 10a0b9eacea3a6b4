import { api } from '../api.js';
import { button, h, replace } from '../dom.js';
import type { FolderSuggestions, PickerFolder } from '../types.js';
import { errorText } from './common.js';
import { recentFolders } from './folders.js';

/**
 * The folder picker: folders used lately, git repositories near home, and a browser of any folder's
 * subfolders. A modal dialog; resolves to the chosen folder, or null.
 */
export function pickFolder(start: string): Promise<string | null> {
  return new Promise((resolve) => new FolderPicker(start, resolve));
}

class FolderPicker {
  private readonly returnTo = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  private readonly suggestions = h('div', { class: 'picker-suggestions' }, [
    h('p', { class: 'note' }, ['Loading…']),
  ]);
  private readonly here = h('p', { class: 'picker-here mono', 'data-testid': 'picker-here' });
  private readonly list = h('ul', { class: 'picker-list', 'data-testid': 'picker-folders' });
  private readonly status = h('p', { class: 'note', role: 'status' });
  private readonly up = button('Up', { class: 'btn btn-small', 'data-testid': 'picker-up' }, () =>
    this.browse(this.parent),
  );
  private readonly dialog: HTMLDialogElement;
  private current: string;
  private parent: string;
  private done = false;
  /** Folders asked for so far: only the answer to the last one is shown (an earlier one may come later). */
  private asked = 0;

  constructor(
    start: string,
    private readonly resolve: (folder: string | null) => void,
  ) {
    this.current = this.parent = start;
    this.dialog = h('dialog', { class: 'dialog dialog-wide', 'aria-labelledby': 'picker-title' }, [
      h('h2', { id: 'picker-title' }, ['Choose a folder']),
      this.suggestions,
      h('h3', {}, ['Browse']),
      h('div', { class: 'picker-bar' }, [this.up, this.here]),
      this.list,
      this.status,
      h('div', { class: 'dialog-actions' }, [
        button('Cancel', { class: 'btn' }, () => this.close(null)),
        button('Use this folder', { class: 'btn btn-primary', 'data-testid': 'picker-use' }, () =>
          this.close(this.current),
        ),
      ]),
    ]);
    this.dialog.addEventListener('cancel', (event) => {
      event.preventDefault();
      this.close(null);
    });
    document.body.appendChild(this.dialog);
    this.dialog.showModal();
    this.browse(start);
    api
      .folders()
      .then((found) => this.suggest(found))
      .catch((error: unknown) => replace(this.suggestions, [h('p', { class: 'note' }, [errorText(error)])]));
  }

  private close(folder: string | null): void {
    if (this.done) return;
    this.done = true;
    this.dialog.close();
    this.dialog.remove();
    this.returnTo?.focus();
    this.resolve(folder);
  }

  private browse(folder: string): void {
    const ask = ++this.asked;
    // Up goes from the folder shown: not again until the one asked for shows (two quick clicks go up twice).
    this.up.disabled = true;
    this.status.textContent = 'Loading…';
    api
      .subfolders(folder)
      .then((listing) => {
        if (ask !== this.asked) return;
        this.current = listing.path;
        this.parent = listing.parent ?? listing.path;
        this.up.disabled = listing.parent === null;
        this.here.textContent = listing.path;
        replace(
          this.list,
          listing.folders.map((sub) =>
            this.item(sub, `picker-open-${sub.name}`, () => this.browse(sub.path)),
          ),
        );
        this.status.textContent =
          listing.folders.length === 0
            ? 'No subfolders.'
            : listing.truncated
              ? 'Only the first 500 are shown.'
              : '';
      })
      .catch((error: unknown) => {
        if (ask !== this.asked) return;
        this.up.disabled = this.parent === this.current;
        this.status.textContent = `Cannot open ${folder}: ${errorText(error)}`;
      });
  }

  private suggest(found: FolderSuggestions): void {
    const recent = recentFolders(found.recent.map((f) => f.path)).slice(0, 8);
    const known = new Map([...found.recent, ...found.repositories].map((f) => [f.path, f]));
    const section = (title: string, folders: PickerFolder[], testid: string) =>
      folders.length === 0
        ? null
        : h('section', { 'aria-label': title }, [
            h('h3', {}, [title]),
            h(
              'ul',
              { class: 'picker-list', 'data-testid': testid },
              folders.map((f) => this.item(f, `pick-${f.name}`, () => this.close(f.path))),
            ),
          ]);
    replace(this.suggestions, [
      section(
        'Recent folders',
        recent.map((path) => known.get(path) ?? { path, name: path.split('/').pop() || path, git: false }),
        'picker-recent',
      ),
      section('Git repositories', found.repositories, 'picker-repositories'),
    ]);
  }

  private item(folder: PickerFolder, testid: string, choose: () => void): HTMLElement {
    return h('li', {}, [
      button(
        [h('span', {}, [folder.name]), folder.git ? h('span', { class: 'tag' }, ['git']) : null],
        { class: 'btn btn-small picker-item', title: folder.path, 'data-testid': testid },
        choose,
      ),
    ]);
  }
}

import type { SearchAddon } from '@xterm/addon-search';
import { button, h } from '../dom.js';
import { isDark } from '../theme.js';

export interface SearchBar {
  element: HTMLElement;
  open(): void;
  close(): void;
  readonly isOpen: boolean;
}

/** Search the terminal's scrollback: Enter finds the next match, Shift+Enter the previous, Esc closes. */
export function searchBar(search: SearchAddon, backToTerminal: () => void): SearchBar {
  const fieldId = 'terminal-search';
  const field = h('input', {
    id: fieldId,
    type: 'search',
    autocomplete: 'off',
    autocapitalize: 'off',
    spellcheck: 'false',
    'data-testid': 'search-field',
  });
  const count = h('span', { class: 'search-count', role: 'status', 'data-testid': 'search-count' });
  const decorations = () => {
    const dark = isDark();
    return {
      matchBackground: dark ? '#5a4a00' : '#fff3a3',
      activeMatchBackground: dark ? '#9e6a03' : '#ffb000',
      matchOverviewRuler: '#d4a72c',
      activeMatchColorOverviewRuler: '#ff8c00',
    };
  };
  const find = (backwards: boolean): void => {
    const term = field.value;
    if (!term) return void (count.textContent = '');
    const options = { decorations: decorations() };
    const found = backwards ? search.findPrevious(term, options) : search.findNext(term, options);
    if (!found) count.textContent = 'No match';
  };
  search.onDidChangeResults(({ resultIndex, resultCount }) => {
    count.textContent =
      resultCount === 0
        ? 'No match'
        : resultIndex >= 0
          ? `${resultIndex + 1} of ${resultCount}`
          : `${resultCount}+`;
  });
  field.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      find(event.shiftKey);
    } else if (event.key === 'Escape') {
      event.preventDefault();
      bar.close();
      backToTerminal();
    }
  });
  field.addEventListener('input', () => find(false));
  const element = h('div', { class: 'search-bar', role: 'search', hidden: true }, [
    h('label', { for: fieldId }, ['Search the scrollback']),
    field,
    button('Previous', { class: 'btn btn-small', 'data-testid': 'search-previous' }, () => find(true)),
    button('Next', { class: 'btn btn-small', 'data-testid': 'search-next' }, () => find(false)),
    count,
    button('Close search', { class: 'btn btn-small btn-quiet' }, () => {
      bar.close();
      backToTerminal();
    }),
  ]);
  const bar: SearchBar = {
    element,
    get isOpen() {
      return !element.hidden;
    },
    open() {
      element.hidden = false;
      field.focus();
      field.select();
    },
    close() {
      element.hidden = true;
      search.clearDecorations();
      count.textContent = '';
    },
  };
  return bar;
}

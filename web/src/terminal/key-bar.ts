import { button, h } from '../dom.js';
import { KEY_BAR, type KeyName } from './keys.js';

export interface KeyBar {
  element: HTMLElement;
  /** The Ctrl key was used up by a key: it goes off. */
  ctrlUsed(): void;
  setEnabled(enabled: boolean): void;
}

/**
 * The keys a phone's keyboard lacks, for the live terminal: Esc, Tab, Ctrl as a modifier for the next key
 * (typed or pressed here), ^C, ^D, arrows, PgUp/PgDn, Enter. Pressing one keeps the focus (and the phone's
 * keyboard) where it is.
 */
export function keyBar(send: (name: KeyName) => void, setCtrl: (on: boolean) => void): KeyBar {
  const ctrl = button(
    'Ctrl',
    { class: 'key key-toggle', 'aria-pressed': 'false', 'data-testid': 'key-ctrl' },
    () => toggleCtrl(ctrl.getAttribute('aria-pressed') !== 'true'),
  );
  const toggleCtrl = (on: boolean): void => {
    ctrl.setAttribute('aria-pressed', String(on));
    setCtrl(on);
  };
  const keys = KEY_BAR.map(([name, label, spoken]) =>
    button(label, { class: 'key', 'aria-label': spoken ?? undefined, 'data-testid': `key-${name}` }, () =>
      send(name),
    ),
  );
  const all = [keys[0]!, keys[1]!, keys[2]!, ctrl, ...keys.slice(3)];
  for (const key of all) key.addEventListener('mousedown', (event) => event.preventDefault());
  return {
    element: h('div', { class: 'keybar', role: 'toolbar', 'aria-label': 'Special keys' }, all),
    ctrlUsed: () => toggleCtrl(false),
    setEnabled: (enabled) => all.forEach((key) => (key.disabled = !enabled)),
  };
}

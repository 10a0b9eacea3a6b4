import { button, h, reconcile, replace } from '../dom.js';
import { notifyLabel, notifyState, toggleNotifications } from '../notify.js';
import { store } from '../store.js';
import { note } from './common.js';
import { promptCard, updateMachineNotice } from './prompt-card.js';

/** #/inbox: every prompt waiting for a person, across sessions, soonest to expire first. */
export function inboxView(root: HTMLElement): () => void {
  const list = h('div', { class: 'list', 'data-testid': 'prompts' });
  const empty = note('Loading…', 'inbox-empty');
  const notify = button('', { class: 'btn btn-small', 'data-testid': 'notify-toggle' }, () => {
    void toggleNotifications().then(renderNotify);
  });
  const renderNotify = (): void => {
    const state = notifyState();
    notify.textContent = notifyLabel(state);
    notify.disabled = state === 'denied' || state === 'unsupported';
    notify.setAttribute('aria-pressed', String(state === 'on'));
  };

  replace(root, [
    h('section', { class: 'view', 'aria-labelledby': 'inbox-title' }, [
      h('div', { class: 'view-head' }, [h('h1', { id: 'inbox-title' }, ['Waiting for you']), notify]),
      list,
      empty,
    ]),
  ]);

  const title = root.querySelector<HTMLElement>('#inbox-title')!;
  title.tabIndex = -1;
  // Answered with the keyboard: on to the next card's first answer, else the previous one's, else the heading.
  const focusNext = (card: HTMLElement): void => {
    const cards = [...list.querySelectorAll<HTMLElement>('.prompt-card:not(.answered)')];
    const after = cards.find(
      (other) => card.compareDocumentPosition(other) & Node.DOCUMENT_POSITION_FOLLOWING,
    );
    const target = after ?? cards.at(-1);
    const control = target?.querySelector<HTMLElement>('.answers button, .answers textarea');
    (control ?? title).focus();
  };
  const render = (): void => {
    empty.hidden = store.prompts.length > 0;
    empty.textContent = store.loaded.prompts
      ? 'Nothing is waiting for you.'
      : (store.status.error ?? 'Loading…');
    reconcile(
      list,
      store.prompts,
      (p) => p.id,
      (prompt) => promptCard(prompt, focusNext),
      // Whether its machine is away, as the configuration says now.
      (card, prompt) => updateMachineNotice(card, prompt),
    );
  };
  render();
  renderNotify();
  // Which machines of the cluster are away: asked again whenever the inbox is opened.
  void store.refreshConfig();
  const offs = [store.on('prompts', render), store.on('status', render), store.on('config', render)];
  return () => offs.forEach((off) => off());
}

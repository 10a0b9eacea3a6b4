import { button, h } from './dom.js';

/** In-page notices, read out by screen readers (aria-live). */

export interface ToastAction {
  label: string;
  run(): void;
}

export interface ToastOptions {
  kind?: 'info' | 'ok' | 'error' | 'prompt';
  actions?: ToastAction[];
  /** Milliseconds before it goes by itself; 0 keeps it until dismissed. */
  timeoutMs?: number;
}

let region: HTMLElement | null = null;

/** Creates the live region up front: screen readers announce changes to a region that already exists. */
export function initToasts(): void {
  container();
}

function container(): HTMLElement {
  if (!region) {
    region = h('div', {
      class: 'toasts',
      'aria-live': 'polite',
      'aria-relevant': 'additions',
      role: 'status',
    });
    document.body.appendChild(region);
  }
  return region;
}

const MAX_TOASTS = 4;

export function toast(message: string, options: ToastOptions = {}): () => void {
  const { kind = 'info', actions = [], timeoutMs = kind === 'error' ? 10_000 : 6_000 } = options;
  const parent = container();
  const element = h('div', { class: `toast toast-${kind}`, 'data-testid': 'toast' });
  const dismiss = (): void => {
    window.clearTimeout(timer);
    element.remove();
  };
  const buttons = actions.map((action) =>
    button(action.label, { class: 'btn btn-small' }, () => {
      dismiss();
      action.run();
    }),
  );
  element.append(
    h('div', { class: 'toast-text' }, [message]),
    h('div', { class: 'toast-actions' }, [
      ...buttons,
      button('✕', { class: 'btn btn-small btn-quiet', 'aria-label': 'Dismiss' }, dismiss),
    ]),
  );
  parent.appendChild(element);
  while (parent.children.length > MAX_TOASTS) parent.firstElementChild?.remove();
  const timer = timeoutMs > 0 ? window.setTimeout(dismiss, timeoutMs) : undefined;
  return dismiss;
}

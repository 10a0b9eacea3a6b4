import { button, h, replace } from './dom.js';

/**
 * Notices: a strip in the page's flow under the top bar (so never over a choice button or the key bar), read
 * out by screen readers (a live region made up front). Two kinds:
 * - one message at a time ("Copied.", "Stop failed: …"), gone after a few seconds or the next message;
 * - one notice per waiting prompt, kept until the prompt is resolved (anywhere) or dismissed, and not shown
 *   where the prompt already is (the inbox, the session's own terminal).
 */

export interface ToastAction {
  label: string;
  run(): void;
}

export interface ToastOptions {
  kind?: 'info' | 'ok' | 'error';
  actions?: ToastAction[];
  /** Milliseconds before it goes by itself; 0 keeps it until dismissed or replaced. */
  timeoutMs?: number;
}

export interface PromptNotice {
  id: string;
  text: string;
  /** The session it comes from: not shown on that session's own terminal, where it is shown already. */
  sessionId: string;
  open(): void;
}

/** More prompts than this are summed up in one line ("and 3 more"). */
const MAX_PROMPT_NOTICES = 2;

let region: HTMLElement | null = null;
const message = h('div', { class: 'notice-slot' });
const prompts = h('div', { class: 'notice-slot' });
let messageTimer: number | undefined;
const waiting = new Map<string, PromptNotice & { listed: boolean; misses: number }>();
const dismissed = new Set<string>();
/** Where the person is: prompt notices are not shown where the prompt is in view. */
let where: { inbox: boolean; sessionId: string | null } = { inbox: false, sessionId: null };
let openInbox: () => void = () => {};

/** Creates the live region up front (screen readers announce changes to a region that already exists). */
export function initToasts(parent: HTMLElement, onOpenInbox: () => void): void {
  region = h(
    'section',
    { class: 'notices', 'aria-label': 'Notices', 'aria-live': 'polite', role: 'status' },
    [prompts, message],
  );
  openInbox = onOpenInbox;
  parent.appendChild(region);
}

/** One message; it replaces the one shown. Returns its dismissal. */
export function toast(text: string, options: ToastOptions = {}): () => void {
  const { kind = 'info', actions = [], timeoutMs = kind === 'error' ? 8_000 : 4_000 } = options;
  window.clearTimeout(messageTimer);
  const element = h('div', { class: `notice notice-${kind}`, 'data-testid': 'toast' });
  const dismiss = (): void => {
    window.clearTimeout(messageTimer);
    element.remove();
  };
  element.append(
    h('p', { class: 'notice-text' }, [text]),
    h('div', { class: 'notice-actions' }, [
      ...actions.map((action) =>
        button(action.label, { class: 'btn btn-small' }, () => {
          dismiss();
          action.run();
        }),
      ),
      button('✕', { class: 'btn btn-small btn-quiet', 'aria-label': 'Dismiss' }, dismiss),
    ]),
  );
  replace(message, [element]);
  if (timeoutMs > 0) messageTimer = window.setTimeout(dismiss, timeoutMs);
  return dismiss;
}

/** A new prompt: its notice, unless it is already in view. */
export function notifyPromptWaiting(notice: PromptNotice): void {
  waiting.set(notice.id, { ...notice, listed: false, misses: 0 });
  renderPrompts();
}

/**
 * The prompts still open: every other prompt's notice goes (answered here, in a chat, at the terminal). A
 * notice newer than the list (fetched before its prompt was made) stays until a list leaves it out twice.
 */
export function keepPromptNotices(openIds: Iterable<string>): void {
  const open = new Set(openIds);
  for (const [id, notice] of [...waiting]) {
    if (open.has(id)) notice.listed = true;
    else if (notice.listed || ++notice.misses >= 2) waiting.delete(id);
  }
  for (const id of [...dismissed]) if (!open.has(id) && !waiting.has(id)) dismissed.delete(id);
  renderPrompts();
}

/** The view changed: prompt notices hide where the prompts are in view. */
export function setNoticeContext(context: { inbox: boolean; sessionId: string | null }): void {
  where = context;
  renderPrompts();
}

/** What the prompt notices show now (their ids, and how many more): drawn again only when it changes. */
let drawn = '';

function renderPrompts(): void {
  if (!region) return;
  const shown = where.inbox
    ? []
    : [...waiting.values()].filter((n) => !dismissed.has(n.id) && n.sessionId !== where.sessionId);
  const first = shown.slice(0, MAX_PROMPT_NOTICES);
  const more = shown.length - first.length;
  // Every list fetched and every store change asks for this: the notices are not replaced (and do not
  // flicker, or lose the focus of a person about to tap one) unless what they show changed.
  const showing = JSON.stringify([first.map((n) => [n.id, n.text]), more]);
  if (showing === drawn) return;
  drawn = showing;
  replace(prompts, [
    ...first.map(promptElement),
    more > 0
      ? h('div', { class: 'notice notice-prompt' }, [
          h('p', { class: 'notice-text' }, [`And ${more} more waiting for you.`]),
          h('div', { class: 'notice-actions' }, [
            button('Open inbox', { class: 'btn btn-small' }, () => openInbox()),
          ]),
        ])
      : null,
  ]);
}

function promptElement(notice: PromptNotice): HTMLElement {
  return h('div', { class: 'notice notice-prompt', 'data-testid': `notice-${notice.id}` }, [
    h('p', { class: 'notice-text' }, [notice.text]),
    h('div', { class: 'notice-actions' }, [
      button('Answer', { class: 'btn btn-small' }, () => notice.open()),
      button('✕', { class: 'btn btn-small btn-quiet', 'aria-label': 'Dismiss' }, () => {
        dismissed.add(notice.id);
        renderPrompts();
      }),
    ]),
  ]);
}

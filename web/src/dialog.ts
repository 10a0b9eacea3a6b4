import { button, h, type Child } from './dom.js';

/**
 * Modal dialogs (<dialog>): focus stays in them, Esc cancels, and focus goes back where it was. A dialog is
 * answered once; its answer resolves the promise.
 */
function modal<T>(
  titleId: string,
  build: (answer: (value: T) => void) => { content: Child[]; focus: HTMLElement },
  cancelled: T,
  extra: Record<string, string> = {},
): Promise<T> {
  return new Promise((resolve) => {
    const returnTo = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    let answered = false;
    const answer = (value: T): void => {
      if (answered) return;
      answered = true;
      dialog.close();
      dialog.remove();
      returnTo?.focus();
      resolve(value);
    };
    const { content, focus } = build(answer);
    const dialog = h('dialog', { class: 'dialog', 'aria-labelledby': titleId, ...extra }, content);
    dialog.addEventListener('cancel', (event) => {
      event.preventDefault();
      answer(cancelled);
    });
    document.body.appendChild(dialog);
    dialog.showModal();
    focus.focus();
  });
}

/** Asks before something that cannot be undone (Stop); resolves true when confirmed. */
export function confirmAction(question: string, detail: string, confirmLabel: string): Promise<boolean> {
  return modal(
    'confirm-title',
    (answer) => {
      const cancel = button('Cancel', { class: 'btn', 'data-testid': 'confirm-cancel' }, () => answer(false));
      const confirm = button(
        confirmLabel,
        { class: 'btn btn-danger-solid', 'data-testid': 'confirm-ok' },
        () => answer(true),
      );
      return {
        content: [
          h('h2', { id: 'confirm-title' }, [question]),
          h('p', {}, [detail]),
          h('div', { class: 'dialog-actions' }, [cancel, confirm]),
        ],
        // The safe choice has the focus: Enter alone never stops a session.
        focus: cancel,
      };
    },
    false,
    { 'data-testid': 'confirm' },
  );
}

/** Asks for one line of text (a session's name); resolves to it, '' to clear, or null when cancelled. */
export function askText(question: string, label: string, initial: string): Promise<string | null> {
  return modal<string | null>(
    'ask-title',
    (answer) => {
      const field = h('input', { id: 'ask-text', value: initial, maxlength: 80, 'data-testid': 'ask-text' });
      const form = h('form', { class: 'dialog-form' }, [
        h('h2', { id: 'ask-title' }, [question]),
        h('label', { for: 'ask-text' }, [label]),
        field,
        h('div', { class: 'dialog-actions' }, [
          button('Cancel', { class: 'btn' }, () => answer(null)),
          h('button', { type: 'submit', class: 'btn btn-primary', 'data-testid': 'ask-ok' }, ['Save']),
        ]),
      ]);
      form.addEventListener('submit', (event) => {
        event.preventDefault();
        answer(field.value.trim());
      });
      return { content: [form], focus: field };
    },
    null,
  );
}

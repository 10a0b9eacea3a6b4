import { button, h } from './dom.js';

/**
 * Asks before something that cannot be undone (Stop): a modal <dialog>, so focus stays in it, Esc cancels,
 * and focus goes back where it was. Resolves true when confirmed.
 */
export function confirmAction(question: string, detail: string, confirmLabel: string): Promise<boolean> {
  return new Promise((resolve) => {
    const returnTo = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const titleId = 'confirm-title';
    const cancel = button('Cancel', { class: 'btn', 'data-testid': 'confirm-cancel' }, () => close(false));
    const confirm = button(confirmLabel, { class: 'btn btn-danger-solid', 'data-testid': 'confirm-ok' }, () =>
      close(true),
    );
    const dialog = h('dialog', { class: 'dialog', 'aria-labelledby': titleId, 'data-testid': 'confirm' }, [
      h('h2', { id: titleId }, [question]),
      h('p', {}, [detail]),
      h('div', { class: 'dialog-actions' }, [cancel, confirm]),
    ]);
    let answered = false;
    const close = (answer: boolean): void => {
      if (answered) return;
      answered = true;
      dialog.close();
      dialog.remove();
      returnTo?.focus();
      resolve(answer);
    };
    dialog.addEventListener('cancel', (event) => {
      event.preventDefault();
      close(false);
    });
    document.body.appendChild(dialog);
    dialog.showModal();
    // The safe choice has the focus: Enter alone never stops a session.
    cancel.focus();
  });
}

/** Asks for one line of text (a session's name); resolves to it, '' to clear, or null when cancelled. */
export function askText(question: string, label: string, initial: string): Promise<string | null> {
  return new Promise((resolve) => {
    const returnTo = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const field = h('input', { id: 'ask-text', value: initial, maxlength: 80, 'data-testid': 'ask-text' });
    const form = h('form', { method: 'dialog', class: 'dialog-form' }, [
      h('h2', { id: 'ask-title' }, [question]),
      h('label', { for: 'ask-text' }, [label]),
      field,
      h('div', { class: 'dialog-actions' }, [
        button('Cancel', { class: 'btn' }, () => close(null)),
        h('button', { type: 'submit', class: 'btn btn-primary', 'data-testid': 'ask-ok' }, ['Save']),
      ]),
    ]);
    const dialog = h('dialog', { class: 'dialog', 'aria-labelledby': 'ask-title' }, [form]);
    let answered = false;
    const close = (answer: string | null): void => {
      if (answered) return;
      answered = true;
      dialog.close();
      dialog.remove();
      returnTo?.focus();
      resolve(answer);
    };
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      close(field.value.trim());
    });
    dialog.addEventListener('cancel', (event) => {
      event.preventDefault();
      close(null);
    });
    document.body.appendChild(dialog);
    dialog.showModal();
    field.select();
  });
}

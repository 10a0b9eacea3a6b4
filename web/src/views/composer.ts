import { api, ApiError } from '../api.js';
import { h } from '../dom.js';
import { errorText } from './common.js';

/**
 * The box to send a structured session a message: Enter sends, Shift+Enter makes a new line. The server types
 * it the way chat text is typed: never into a waiting prompt (it answers one that takes words, or waits).
 */
export class Composer {
  readonly element: HTMLFormElement;
  private readonly field: HTMLTextAreaElement;
  private readonly send: HTMLButtonElement;
  private readonly hint: HTMLElement;
  private readonly result: HTMLElement;
  private enabled = true;
  private sending = false;

  constructor(private readonly sessionId: string) {
    const fieldId = `message-${sessionId}`;
    this.field = h('textarea', {
      id: fieldId,
      rows: 2,
      class: 'composer-text',
      placeholder: 'Message the agent',
      'aria-describedby': `${fieldId}-hint`,
      'data-testid': 'message-text',
    });
    this.send = h('button', { type: 'submit', class: 'btn btn-primary', 'data-testid': 'message-send' }, [
      'Send',
    ]);
    this.hint = h('p', { id: `${fieldId}-hint`, class: 'composer-hint', hidden: true });
    this.result = h('p', { class: 'composer-result', role: 'status', 'data-testid': 'message-result' });
    this.element = h('form', { class: 'composer', 'data-testid': 'composer' }, [
      h('label', { for: fieldId, class: 'visually-hidden' }, ['Message to the agent']),
      h('div', { class: 'composer-row' }, [this.field, this.send]),
      this.hint,
      this.result,
    ]);
    this.element.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.submit();
    });
    this.field.addEventListener('keydown', (event) => {
      if (event.key !== 'Enter' || event.shiftKey || event.isComposing) return;
      event.preventDefault();
      void this.submit();
    });
  }

  focus(): void {
    if (this.enabled) this.field.focus({ preventScroll: true });
  }

  /** Off once the session ended (or it runs where this page cannot reach it). */
  setEnabled(enabled: boolean): void {
    this.enabled = enabled;
    this.field.disabled = !enabled;
    this.send.disabled = !enabled || this.sending;
    this.field.placeholder = enabled ? 'Message the agent' : 'This session takes no messages from here';
  }

  /** A prompt waits: say what a message does then. */
  setWaiting(waiting: boolean): void {
    this.hint.hidden = !waiting;
    this.hint.textContent = waiting
      ? 'A prompt is waiting (above): a message answers it where it takes words, else waits until it is answered.'
      : '';
  }

  private async submit(): Promise<void> {
    const text = this.field.value;
    if (!this.enabled || this.sending) return;
    if (!text.trim()) return this.field.focus();
    this.sending = true;
    this.send.disabled = true;
    this.show('Sending…', '');
    try {
      const sent = await api.sendMessage(this.sessionId, text);
      this.field.value = '';
      this.show(sent.notice ?? 'Sent.', 'ok');
    } catch (error) {
      const why =
        error instanceof ApiError && error.status === 404
          ? 'the session no longer takes messages'
          : errorText(error);
      this.show(`Not sent: ${why}`, 'error');
    } finally {
      this.sending = false;
      this.send.disabled = !this.enabled;
      this.field.focus({ preventScroll: true });
    }
  }

  private show(text: string, kind: '' | 'ok' | 'error'): void {
    this.result.textContent = text;
    this.result.className = `composer-result${kind ? ` ${kind}` : ''}`;
  }
}

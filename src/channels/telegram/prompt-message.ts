import { encodeButton, type ButtonValue } from '../callback-data.js';
import type { PromptOutcome, PromptView } from '../contract.js';
import { answerIcon, KIND_TITLES, promptSubject } from '../view-types.js';
import { spokenDuration } from '../../core/spoken-duration.js';

/** How a prompt reads on Telegram (HTML parse mode), and its inline keyboard. */

export interface InlineButton {
  text: string;
  callback_data: string;
}

const MAX_DETAIL = 3000;
const BUTTON_LABEL_MAX = 40;

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function promptText(prompt: PromptView, now: number): string {
  const { origin } = prompt;
  const left = spokenDuration(prompt.expiresAt - now);
  const detail =
    prompt.detail.length > MAX_DETAIL ? prompt.detail.slice(0, MAX_DETAIL) + '\n…' : prompt.detail;
  const subject = promptSubject(prompt);
  const lines = [
    `🔔 <b>${escapeHtml(KIND_TITLES[prompt.kind])}</b> · ${escapeHtml(origin.agent)} · ${escapeHtml(origin.label)} · ${escapeHtml(origin.host)}`,
    ...(subject ? [`<b>${escapeHtml(subject)}</b>`] : []),
    `<pre>${escapeHtml(detail || prompt.excerpt)}</pre>`,
  ];
  // A button shows a short label: the options are spelled out in full where one would be cut.
  if (prompt.choices.some((c) => c.label.length > BUTTON_LABEL_MAX))
    lines.push(
      prompt.choices.map((c) => `<b>${c.number}.</b> ${escapeHtml(shorten(c.label, 200))}`).join('\n'),
    );
  if (prompt.kind === 'free_text') lines.push('Reply to this message with your answer.');
  if (prompt.kind === 'unknown')
    lines.push(`Confidence: ${prompt.confidence}. It may be waiting for input, or just quiet.`);
  const fallback = prompt.safeDefault ? `then: ${escapeHtml(prompt.safeDefault)}` : 'then nothing is typed';
  lines.push(`<i>Session ${prompt.sessionId.slice(0, 8)} · expires in ${left}, ${fallback}</i>`);
  return lines.join('\n');
}

/**
 * One button per choice (up to 9), "Other…" where words are an answer (the person then replies with them), the
 * kind's own buttons, and "Use default" where there is one.
 */
export function promptKeyboard(prompt: PromptView): InlineButton[][] {
  const button = (text: string, value: ButtonValue): InlineButton => ({
    text,
    callback_data: encodeButton(prompt.promptId, prompt.sessionId, prompt.nonce, value),
  });
  const rows: InlineButton[][] = [];
  if (prompt.kind === 'unknown') {
    rows.push([button('⏎ Send Enter', 'e'), button('✖ Cancel', 'c'), button('📄 Show more', 'm')]);
    return rows;
  }
  if (prompt.choices.length > 0) {
    // A question's "Type something." means nothing without the words: the words come with "Other…".
    const shown = prompt.choices.filter((c) => prompt.kind !== 'question' || c.number !== prompt.textChoice);
    for (const choice of shown.slice(0, 9)) {
      rows.push([
        button(
          `${choice.number}. ${shorten(choice.label, BUTTON_LABEL_MAX)}`,
          `${choice.number}` as ButtonValue,
        ),
      ]);
    }
    if (prompt.textChoice !== null)
      rows.push([button(prompt.kind === 'question' ? '✍️ Other…' : '✍️ No, and say why…', 'o')]);
  } else if (prompt.kind === 'yes_no') {
    rows.push([button('✅ Yes', 'y'), button('❌ No', 'n')]);
  } else if (prompt.kind === 'confirm_enter') {
    rows.push([button('⏎ Press Enter', 'e')]);
  }
  if (prompt.safeDefault) rows.push([button(`Use default (${shorten(prompt.safeDefault, 30)})`, 'd')]);
  return rows;
}

export function outcomeText(prompt: PromptView, outcome: PromptOutcome, now: number): string {
  const who = outcome.decidedBy ? escapeHtml(describeWho(outcome.decidedBy)) : 'someone';
  const line = (() => {
    switch (outcome.status) {
      case 'resolved':
        return outcome.decidedBy === 'terminal:local'
          ? '⌨️ Answered at the terminal'
          : `${answerIcon(outcome.answer)} <b>${escapeHtml(outcome.answer ?? 'answered')}</b> — by ${who}`;
      case 'expired':
        return `⌛ Expired${outcome.answer ? ` — applied the default: <b>${escapeHtml(outcome.answer)}</b>` : ' — nothing was typed'}`;
      case 'canceled':
        return `✖ Cancelled by ${who}`;
      case 'failed':
        return `⚠️ Not answered: ${escapeHtml(outcome.note ?? 'the session ended')}`;
    }
  })();
  return `${promptText(prompt, now).split('\n').slice(0, -1).join('\n')}\n${line}`;
}

function describeWho(decidedBy: string): string {
  if (decidedBy === 'auto:timeout') return 'timeout';
  return decidedBy;
}

function shorten(text: string, max: number): string {
  return text.length > max ? text.slice(0, max - 1) + '…' : text;
}

import type { ButtonValue } from './callback-data.js';
import type { PromptView } from './view-types.js';

/**
 * Which buttons a prompt gets, in rows, for platforms with buttons of their own styles (Discord, Slack).
 * Where the agent shows options (a permission, a plan, a question, a menu) there is one button per option, in
 * the agent's own words (a grant says exactly what it grants), and Other… where words are an answer; yes/no,
 * "press Enter" and "possibly waiting" prompts get buttons of their own; a default button where one applies.
 */

export type ButtonStyle = 'primary' | 'secondary' | 'success' | 'danger';

export interface PlannedButton {
  /** Already shortened to `labelMax`. */
  label: string;
  value: ButtonValue;
  style: ButtonStyle;
}

const NEGATIVE = /^(no|deny|reject|don't|do not)\b/i;

export function planButtons(
  prompt: PromptView,
  options: { labelMax: number; perRow: number },
): PlannedButton[][] {
  const button = (label: string, value: ButtonValue, style: ButtonStyle = 'primary'): PlannedButton => ({
    label: shorten(label, options.labelMax),
    value,
    style,
  });
  const other = (label = 'Other…') => button(label, 'o', 'secondary');
  const typed = prompt.textChoice !== null;
  // Only prompts without the agent's own options get buttons of ours.
  const kindRow = (): PlannedButton[] | null => {
    if (prompt.choices.length > 0) return null;
    switch (prompt.kind) {
      case 'unknown':
        return [
          button('⏎ Send Enter', 'e', 'secondary'),
          button('✖ Cancel', 'c', 'secondary'),
          button('📄 Show more', 'm', 'secondary'),
          other('Answer…'),
        ];
      case 'free_text':
        return [other('Answer…')];
      case 'confirm_enter':
        return [button('⏎ Press Enter', 'e')];
      case 'question':
        return typed ? [other()] : null;
      default:
        // yes/no, and a permission or plan that came without options.
        return [button('Yes', 'y', 'success'), button('No', 'n', 'danger')];
    }
  };
  const choiceStyle = (label: string, index: number): ButtonStyle =>
    NEGATIVE.test(label) ? 'danger' : index === 0 && prompt.kind !== 'question' ? 'success' : 'primary';
  const choiceRows = (): PlannedButton[][] => {
    const buttons = prompt.choices
      .filter((c) => prompt.kind !== 'question' || c.number !== prompt.textChoice)
      .map((c, i) =>
        button(`${c.number}. ${c.label}`, `${c.number}` as ButtonValue, choiceStyle(c.label, i)),
      );
    const rows: PlannedButton[][] = [];
    for (let i = 0; i < buttons.length; i += options.perRow) rows.push(buttons.slice(i, i + options.perRow));
    if (typed) rows.push([other(prompt.kind === 'question' ? 'Other…' : 'No, and say why…')]);
    return rows;
  };
  const own = kindRow();
  const rows = own ? [own] : choiceRows();
  const defaultApplies = prompt.kind !== 'permission' && prompt.kind !== 'plan' && prompt.kind !== 'unknown';
  if (prompt.safeDefault && defaultApplies)
    rows.push([button(`Use default (${shorten(prompt.safeDefault, 40)})`, 'd', 'secondary')]);
  return rows.filter((row) => row.length > 0);
}

/** True when a choice's label would be cut on a button: the options are then spelled out in the message. */
export function choicesCut(prompt: PromptView, labelMax: number): boolean {
  return prompt.choices.some((c) => `${c.number}. ${c.label}`.length > labelMax);
}

/** `discord:123` / `slack:U123`: who answered, as the platform shows a mention; `timeout` for the clock. */
export function describeDecider(
  decidedBy: string,
  mention: (platform: string, id: string) => string | null,
): string {
  if (decidedBy === 'auto:timeout') return 'timeout';
  const match = /^([a-z]+):([A-Za-z0-9]+)$/.exec(decidedBy);
  return (match && mention(match[1]!, match[2]!)) ?? decidedBy;
}

export function shorten(text: string, max: number): string {
  return text.length > max ? text.slice(0, max - 1) + '…' : text;
}

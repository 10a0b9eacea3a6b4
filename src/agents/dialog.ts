import type { DialogKeys, DialogState } from '../core/dialog-keys.js';
import type { DetectedPrompt } from '../core/prompt.js';
import type { PromptChoice } from '../core/events.js';
import { findMenu, type Menu } from '../core/screen-text.js';

/** Shared by the agents' screen vocabularies: a detected dialog with the keys it takes. */

/** The prompt with its dialog's keys and the option the screen highlights (arrows move from it). */
export function keyed(
  prompt: DetectedPrompt | null,
  keys: DialogKeys,
  lines: readonly string[],
  extra: Omit<DialogState, 'keys'> = {},
): DetectedPrompt | null {
  if (!prompt) return null;
  const highlighted = extra.highlighted ?? findMenu(lines, 8)?.selected;
  const dialog: DialogState = { keys, ...extra };
  if (highlighted !== undefined) dialog.highlighted = highlighted;
  return { ...prompt, dialog };
}

/** `[ ] Cheese`, `[✔] Cheese`, `[x] Cheese`: a multi-select option's box and label. */
const CHECKBOX = /^\[([ ✔✓x×])\]\s+(.*)$/;

export interface CheckboxMenu {
  /**
   * The menu with the boxes taken out of its labels (so ticking one does not make it a new prompt), its boxes
   * marked `checkbox`.
   */
  menu: Menu;
  /** The boxes ticked now. */
  ticked: number[];
}

/**
 * A menu whose options are check boxes (a multi-select question), or null. `isBox` tells boxes to tick from
 * options drawn with a box that are something else ("Type something" opens a text field).
 */
export function checkboxMenu(menu: Menu, isBox: (label: string) => boolean): CheckboxMenu | null {
  const ticked: number[] = [];
  let boxes = 0;
  const choices: PromptChoice[] = menu.choices.map((choice) => {
    const match = CHECKBOX.exec(choice.label);
    if (!match) return choice;
    const label = match[2]!;
    if (!isBox(label)) return { ...choice, label };
    boxes++;
    if (match[1] !== ' ') ticked.push(choice.number);
    return { ...choice, label, checkbox: true };
  });
  return boxes > 1 ? { menu: { ...menu, choices }, ticked } : null;
}

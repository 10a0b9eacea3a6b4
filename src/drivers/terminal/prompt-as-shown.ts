import type { DetectedPrompt } from '../../core/prompt.js';
import type { BoxFlip } from './reply-keys.js';

/** What an answer knows of the prompt as it was raised: its safe default, and its kind, choices and dialog if kept. */
export type RaisedPrompt = Pick<DetectedPrompt, 'safeDefault'> &
  Partial<Pick<DetectedPrompt, 'kind' | 'choices' | 'dialog'>>;

/**
 * The prompt to work the keys out from: the one raised (the same prompt: its key names its kind, question and
 * choices), in the state its dialog is drawn in now (the highlight may have moved, boxes been ticked).
 */
export function asShownNow(
  raised: RaisedPrompt,
  shown: DetectedPrompt | null,
): Pick<DetectedPrompt, 'kind' | 'choices' | 'safeDefault' | 'dialog'> {
  const kind = raised.kind ?? shown?.kind ?? 'unknown';
  const choices = raised.choices ?? shown?.choices ?? [];
  const keys = raised.dialog?.keys ?? shown?.dialog?.keys;
  const now = shown?.dialog ?? raised.dialog;
  const dialog = keys ? { ...now, keys } : undefined;
  return { kind, choices, safeDefault: raised.safeDefault, ...(dialog ? { dialog } : {}) };
}

/** A multi-select answer as it is typed: the boxes' keys so far, the last box, by when it must show flipped. */
export interface AnswerBoxes {
  typed: string[];
  last: BoxFlip | null;
  shownBy: number;
  flips: number;
  /** The detector was told an answer is being typed (from the first box on). */
  answering: boolean;
}

/** The dialog shows the box last flipped as it was meant to be. */
export function flipShown(flip: BoxFlip, current: ReturnType<typeof asShownNow>): boolean {
  return (current.dialog?.ticked ?? []).includes(flip.box) === flip.ticks;
}

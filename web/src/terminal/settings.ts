import { terminalFontSize } from '../theme.js';

/** The person's terminal font size, kept in this browser; the screen's default until they choose. */

const KEY = 'agent-bridge.font-size';
export const FONT_SIZES = { min: 8, max: 28 };

export function ownFontSize(): number {
  const stored = Number(localStorage.getItem(KEY));
  return Number.isFinite(stored) && stored >= FONT_SIZES.min && stored <= FONT_SIZES.max
    ? stored
    : terminalFontSize();
}

export function setOwnFontSize(size: number): number {
  const next = Math.min(FONT_SIZES.max, Math.max(FONT_SIZES.min, Math.round(size)));
  try {
    localStorage.setItem(KEY, String(next));
  } catch {
    // storage disabled: the size holds for this page only
  }
  return next;
}

import type { Terminal } from '@xterm/xterm';

/**
 * Terminal geometry: how many cells fit a box at a font size, and the font size that shows a terminal of a
 * given size (another viewer's) whole in the box: scaled down, never below a readable size (then it scrolls),
 * and letterboxed when the box is larger.
 */

export interface Cells {
  cols: number;
  rows: number;
}

export interface Pixels {
  width: number;
  height: number;
}

/** xterm's own scroll bar, kept clear of the text (as its fit addon does). */
const SCROLLBAR_PX = 14;
/** Smaller than this is unreadable: the terminal scrolls instead. */
export const MIN_FONT = 8;

/** A cell's size in CSS pixels at the terminal's current font (the renderer's own figure, as the fit addon reads it). */
export function cellPixels(term: Terminal): Pixels | null {
  const core = (
    term as unknown as { _core?: { _renderService?: { dimensions?: { css?: { cell?: Pixels } } } } }
  )._core;
  const cell = core?._renderService?.dimensions?.css?.cell;
  return cell && cell.width > 0 && cell.height > 0 ? { width: cell.width, height: cell.height } : null;
}

/** The room for text in the box that holds the terminal, without its padding and the scroll bar. */
export function roomFor(term: Terminal, box: HTMLElement): Pixels {
  const element = term.element;
  const style = element ? getComputedStyle(element) : null;
  const pad = (side: string) => (style ? parseFloat(style.getPropertyValue(`padding-${side}`)) || 0 : 0);
  return {
    width: Math.max(0, box.clientWidth - pad('left') - pad('right') - SCROLLBAR_PX),
    height: Math.max(0, box.clientHeight - pad('top') - pad('bottom')),
  };
}

/** Cells of `cell` size that fit in `room`. */
export function cellsThatFit(room: Pixels, cell: Pixels): Cells {
  return {
    cols: Math.max(2, Math.floor(room.width / cell.width)),
    rows: Math.max(1, Math.floor(room.height / cell.height)),
  };
}

/** A cell's size at another font size (glyphs scale with the font). */
export function cellAtFont(cell: Pixels, from: number, to: number): Pixels {
  return { width: (cell.width * to) / from, height: (cell.height * to) / from };
}

/**
 * The font size at which `size` (another viewer's terminal) fits in `room`: the person's own size when it
 * fits, else smaller, in half points, but not below MIN_FONT.
 */
export function fontToShow(size: Cells, room: Pixels, cellAtOwnFont: Pixels, ownFont: number): number {
  const scale = Math.min(
    room.width / (size.cols * cellAtOwnFont.width),
    room.height / (size.rows * cellAtOwnFont.height),
  );
  if (scale >= 1) return ownFont;
  return Math.max(MIN_FONT, Math.floor(ownFont * scale * 2) / 2);
}

import type { ITerminalOptions, ITheme } from '@xterm/xterm';

/** Terminal colours and font that follow the page (light/dark, phone/desktop). */

const DARK: ITheme = {
  background: '#0d1117',
  foreground: '#e6edf3',
  cursor: '#e6edf3',
  cursorAccent: '#0d1117',
  selectionBackground: '#3b5070',
};

// GitHub Light's terminal palette: the default ANSI colours (yellow, white) vanish on white.
const LIGHT: ITheme = {
  background: '#ffffff',
  foreground: '#1f2328',
  cursor: '#1f2328',
  cursorAccent: '#ffffff',
  selectionBackground: '#b6d7ff',
  black: '#24292f',
  red: '#cf222e',
  green: '#116329',
  yellow: '#4d2d00',
  blue: '#0969da',
  magenta: '#8250df',
  cyan: '#1b7c83',
  white: '#6e7781',
  brightBlack: '#57606a',
  brightRed: '#a40e26',
  brightGreen: '#1a7f37',
  brightYellow: '#633c01',
  brightBlue: '#218bff',
  brightMagenta: '#a475f9',
  brightCyan: '#3192aa',
  brightWhite: '#8c959f',
};

const darkQuery = window.matchMedia('(prefers-color-scheme: dark)');

export function isDark(): boolean {
  return darkQuery.matches;
}

export function terminalTheme(): ITheme {
  return isDark() ? DARK : LIGHT;
}

/** Smaller type on narrow screens so more columns fit a phone. */
export function terminalFontSize(): number {
  const width = window.innerWidth;
  if (width < 480) return 11;
  if (width < 800) return 12;
  return 14;
}

export function terminalOptions(): ITerminalOptions {
  return {
    fontFamily: 'ui-monospace, "SF Mono", Menlo, "Cascadia Mono", "DejaVu Sans Mono", Consolas, monospace',
    fontSize: terminalFontSize(),
    theme: terminalTheme(),
    minimumContrastRatio: isDark() ? 1 : 3,
    scrollback: 5000,
    macOptionIsMeta: true,
  };
}

/** Calls back when the colour scheme changes; returns the unsubscribe. */
export function onSchemeChange(callback: () => void): () => void {
  darkQuery.addEventListener('change', callback);
  return () => darkQuery.removeEventListener('change', callback);
}

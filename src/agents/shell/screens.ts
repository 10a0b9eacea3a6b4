import type { ScreenVocabulary } from '../../core/screen-vocabulary.js';

/** A shell waiting at its prompt (`user@host:~$ `, `# `, `% `, `> `) is idle, not asking a question. */
const SHELL_PROMPT = /(?:[$#%>❯]|\$\s*\(\w+\)) ?$/;

export const shellScreens: ScreenVocabulary = {
  isIdle: (screen) => {
    const line = screen.lines[screen.cursor.y] ?? '';
    return SHELL_PROMPT.test(line.slice(0, screen.cursor.x).trimEnd());
  },
  menuKeys: 'digit-enter',
};

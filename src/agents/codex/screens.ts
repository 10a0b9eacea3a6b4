import { chooseNo, detectQuestionMenu } from '../../core/prompt-patterns.js';
import type { ScreenVocabulary } from '../../core/screen-vocabulary.js';
import { lastContentRow } from '../../core/screen-text.js';

/** Codex's approval dialogs (agent-facts 22): "Would you like to run the following command?" then a › menu. */
const APPROVAL =
  /Would you like to (?:run the following command|make the following edits|apply|allow|grant)\b.*\?/i;
const TRUST = /trust (?:this folder|the contents of this directory)/i;

export const codexScreens: ScreenVocabulary = {
  detect: (screen) =>
    detectQuestionMenu(screen, {
      kind: 'permission',
      question: APPROVAL,
      contextStart: /^\s*[•›]\s/,
      safeDefault: chooseNo,
      allowForSession: /don't ask again|for this session|always/i,
    }) ?? detectQuestionMenu(screen, { kind: 'permission', question: TRUST }),
  isIdle: (screen) => {
    const bottom = lastContentRow(screen.lines);
    const tail = screen.lines.slice(Math.max(0, bottom - 4), bottom + 1).join('\n');
    return /\? for shortcuts/.test(tail) && /^›\s/m.test(tail);
  },
  menuKeys: 'digit',
};

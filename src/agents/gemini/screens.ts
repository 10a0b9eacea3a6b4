import { chooseNo, detectQuestionMenu } from '../../core/prompt-patterns.js';
import type { ScreenVocabulary } from '../../core/screen-vocabulary.js';
import { lastContentRow } from '../../core/screen-text.js';

/** Gemini CLI's tool confirmations (agent-facts 32): "Allow execution of [Shell]?" and a ● menu in a box. */
const CONFIRM =
  /Allow execution of .*\?|Apply this change\?|Allow (?:this|the) .*\?|Do you want to proceed\?/;
const TRUST = /Do you trust the files in this folder\?/;

export const geminiScreens: ScreenVocabulary = {
  detect: (screen) =>
    detectQuestionMenu(screen, {
      kind: 'permission',
      question: CONFIRM,
      safeDefault: chooseNo,
      allowForSession: /for this session|always/i,
    }) ?? detectQuestionMenu(screen, { kind: 'permission', question: TRUST }),
  isIdle: (screen) => {
    const bottom = lastContentRow(screen.lines);
    return screen.lines.slice(Math.max(0, bottom - 5), bottom + 1).some((l) => /Type your message/.test(l));
  },
  menuKeys: 'digit',
};

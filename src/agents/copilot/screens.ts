import { detectQuestionMenu } from '../../core/prompt-patterns.js';
import type { ScreenVocabulary } from '../../core/screen-vocabulary.js';

/** Copilot CLI's dialogs (agent-facts 40–41): "Do you want to run this command?" and a ❯ menu in a box. */
const CONFIRM = /Do you want to (?:run this command|edit|create|allow|use|proceed).*\?/;
const TRUST = /Do you trust the files in this folder\?/;

export const copilotScreens: ScreenVocabulary = {
  detect: (screen) =>
    detectQuestionMenu(screen, {
      kind: 'permission',
      question: CONFIRM,
      // Copilot's "No" option then asks for feedback text; Esc declines cleanly.
      safeDefault: () => ({ type: 'escape' }),
      allowForSession: /don't ask again|remember/i,
    }) ?? detectQuestionMenu(screen, { kind: 'permission', question: TRUST }),
  menuKeys: 'digit',
};

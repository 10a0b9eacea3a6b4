import type { ScreenVocabulary } from '../core/screen-vocabulary.js';

/** Programs without a vocabulary of their own: the generic patterns decide, menus take a digit and Enter. */
export const genericScreens: ScreenVocabulary = { menuKeys: 'digit-enter' };

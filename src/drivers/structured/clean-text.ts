import { stripVTControlCharacters } from 'node:util';
import { stripControls } from '../../core/answer-text.js';

/**
 * What an agent says is text for people: escape sequences and other control characters are removed before
 * it reaches a chat or this terminal (a hostile or confused agent could otherwise retitle the window, write
 * the clipboard with OSC 52, or hide what it asks behind bidi overrides). Line breaks and tabs stay.
 */
export function cleanText(text: string): string {
  return stripControls(stripVTControlCharacters(text));
}

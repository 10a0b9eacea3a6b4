import type { DetectedPrompt, ReplyAction } from '../../core/prompt.js';
import { encodeTextInput } from './input.js';

/**
 * The keys that give `action` to a terminal program, as separate writes (TUIs mishandle keys that arrive in
 * one write, agent-facts). Menus take a digit (at once, or then Enter, per the agent's vocabulary); y/n and
 * free text end with Enter. `cancel` types nothing. Null when the action cannot apply (no safe default).
 */
export function replyKeys(
  action: ReplyAction,
  prompt: Pick<DetectedPrompt, 'safeDefault'>,
  menuKeys: 'digit' | 'digit-enter',
  bracketedPaste: boolean,
): string[] | null {
  switch (action.type) {
    case 'choice': {
      const keys =
        menuKeys === 'digit' && action.number < 10 ? [String(action.number)] : [String(action.number), '\r'];
      if (action.text === undefined) return keys;
      // The words go in after the choice: the answer after "Type something.", or the reason for a "No".
      const { body, submit } = encodeTextInput(action.text, { bracketedPaste, submit: true });
      return body ? [...keys, body, submit] : keys;
    }
    case 'yes':
      return ['y\r'];
    case 'no':
      return ['n\r'];
    case 'enter':
      return ['\r'];
    case 'escape':
      return ['\x1b'];
    case 'text': {
      const { body, submit } = encodeTextInput(action.text, { bracketedPaste, submit: true });
      return body ? [body, submit] : [submit];
    }
    case 'default':
      return prompt.safeDefault ? replyKeys(prompt.safeDefault, prompt, menuKeys, bracketedPaste) : null;
    case 'cancel':
      return [];
    case 'sealed':
      throw new Error('a secret answer is typed only after its session opened it');
  }
}

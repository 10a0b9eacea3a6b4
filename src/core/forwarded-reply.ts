import { normalizeLineEnds, textProblem } from './answer-text.js';
import { ReplyError, textChoiceOf, type DetectedPrompt, type ReplyAction } from './prompt.js';

type PromptShape = Pick<DetectedPrompt, 'kind' | 'choices' | 'multiline' | 'secret'>;

/**
 * An answer parsed elsewhere (a hub, from its mirror of the prompt) as this prompt would take it, checked here
 * against the prompt's own choices: only what parseReply() could have made of some words, text only, and a
 * secret only sealed (never in the clear on the way). Throws ReplyError otherwise.
 */
export function checkForwardedReply(reply: ReplyAction, prompt: PromptShape): ReplyAction {
  if (prompt.secret && (reply.type === 'text' || (reply.type === 'choice' && reply.text !== undefined)))
    throw new ReplyError('a secret answer must come sealed to the session');
  switch (reply.type) {
    case 'choice':
      return checkedChoice(reply, prompt);
    case 'choices':
      return checkedBoxes(reply.numbers, prompt);
    case 'text':
      if (prompt.choices.length > 0 && prompt.kind !== 'free_text')
        throw new ReplyError(`answer with a choice: ${prompt.choices.map((c) => c.number).join(', ')}`);
      if (prompt.kind === 'yes_no' || prompt.kind === 'confirm_enter')
        throw new ReplyError('this prompt takes no words');
      return { type: 'text', text: checkedWords(reply.text, prompt) };
    case 'yes':
    case 'no':
      if (prompt.choices.length > 0) throw new ReplyError('answer a menu with one of its choices');
      return { type: reply.type };
    case 'sealed':
      if (!prompt.secret || reply.box === null)
        throw new ReplyError('only a secret prompt takes a sealed answer');
      return { type: 'sealed', box: reply.box, length: reply.length };
    case 'enter':
    case 'default':
    case 'escape':
    case 'cancel':
      return { type: reply.type };
  }
}

function checkedChoice(reply: Extract<ReplyAction, { type: 'choice' }>, prompt: PromptShape): ReplyAction {
  if (prompt.choices.length > 0 && !prompt.choices.some((c) => c.number === reply.number))
    throw new ReplyError(
      `no choice ${reply.number}: choose ${prompt.choices.map((c) => c.number).join(', ')}`,
    );
  if (reply.text === undefined) return { type: 'choice', number: reply.number };
  if (textChoiceOf(prompt) !== reply.number) throw new ReplyError(`choice ${reply.number} takes no words`);
  return { type: 'choice', number: reply.number, text: checkedWords(reply.text, prompt) };
}

/** Several boxes ticked at once: each a box of this prompt, each once (as parseReply would have made them). */
function checkedBoxes(numbers: readonly number[], prompt: PromptShape): ReplyAction {
  const boxes = prompt.choices.filter((c) => c.checkbox).map((c) => c.number);
  const unique = [...new Set(numbers)];
  if (boxes.length === 0) throw new ReplyError('this prompt ticks no boxes: answer with one choice');
  if (unique.length === 0 || unique.some((n) => !boxes.includes(n)))
    throw new ReplyError(`tick boxes among ${boxes.join(', ')}`);
  return { type: 'choices', numbers: unique.sort((a, b) => a - b) };
}

function checkedWords(text: string, prompt: PromptShape): string {
  const problem = textProblem(text);
  if (problem) throw new ReplyError(problem);
  const normalized = normalizeLineEnds(text);
  if (prompt.multiline === false && /\n/.test(normalized.trim()))
    throw new ReplyError('this prompt takes one line at a time: send your answer without line breaks');
  return normalized;
}

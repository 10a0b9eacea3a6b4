import type { PromptChoice } from '../../../core/events.js';
import { denialMessage, type DetectedPrompt, type ReplyAction } from '../../../core/prompt.js';
import { describeToolInput, hookPermissionChoices } from '../../hooks/claude-hook-events.js';
import { exactPrompt, wordsOf } from '../pending-prompts.js';
import { editOf } from './stream-json-events.js';
import type { CanUseToolRequest, Question } from './stream-json-wire.js';

/**
 * Claude's questions as prompts, and people's answers as Claude's replies (pure). Permissions come as
 * `can_use_tool` control requests; AskUserQuestion and ExitPlanMode through a PreToolUse hook callback, in
 * every permission mode (bypass modes skip `can_use_tool` for them).
 */

/** A tool permission, with Claude's own options: Yes; Yes, and <its suggestions, in words>; No. */
export function permissionPrompt(request: CanUseToolRequest, requestId: string): DetectedPrompt {
  const tool = request.tool_name;
  const summary = describeToolInput(tool, request.input);
  const edit = editOf(tool, request.input);
  const body = edit ? edit.diff : JSON.stringify(request.input, null, 2);
  const { choices, grant, no } = hookPermissionChoices({
    permission_suggestions: request.permission_suggestions ?? [],
  });
  return exactPrompt({
    kind: 'permission',
    summary: `${tool}: ${summary}`,
    detail: `${tool}\n\n${summary}\n\n${body}`,
    choices,
    safeDefault: { type: 'choice', number: no },
    ...(grant ? { allowForSessionChoice: grant } : {}),
    key: `claude|permission|${requestId}`,
  });
}

/** The `can_use_tool` answer: allow (with Claude's suggestions applied when granted), or deny with words. */
export function permissionReply(
  request: CanUseToolRequest,
  action: ReplyAction,
  decidedBy: string,
): Record<string, unknown> {
  const { grant, no } = hookPermissionChoices({
    permission_suggestions: request.permission_suggestions ?? [],
  });
  const number = chosenNumber(action, no);
  if (number === 1) return { behavior: 'allow', updatedInput: request.input };
  if (number === grant && grant !== null)
    return {
      behavior: 'allow',
      updatedInput: request.input,
      updatedPermissions: request.permission_suggestions,
    };
  if (number === no) return { behavior: 'deny', message: denialMessage(decidedBy, wordsOf(action)) };
  if (action.type === 'cancel' || action.type === 'escape')
    return { behavior: 'deny', message: denialMessage(decidedBy, undefined), interrupt: true };
  throw new Error(`"${action.type}" does not answer a permission: choose 1 to ${no}`);
}

function chosenNumber(action: ReplyAction, no: number): number | null {
  if (action.type === 'choice') return action.number;
  if (action.type === 'yes') return 1;
  if (action.type === 'no') return no;
  return null;
}

const TYPE_SOMETHING = 'Type something.';

/** One of AskUserQuestion's questions: its options as Claude shows them, then "Type something.". */
export function questionPrompt(question: Question, toolUseId: string, index: number): DetectedPrompt {
  const choices: PromptChoice[] = question.options.map((option, i) => ({
    number: i + 1,
    label: option.label,
    ...(option.description ? { description: option.description } : {}),
  }));
  choices.push({ number: choices.length + 1, label: TYPE_SOMETHING });
  const options = question.options.map(
    (o, i) => `${i + 1}. ${o.label}${o.description ? ` — ${o.description}` : ''}`,
  );
  return exactPrompt({
    kind: 'question',
    summary: question.question,
    detail: [question.header ? `${question.header}: ${question.question}` : question.question, '', ...options]
      .concat(
        question.multiSelect ? ['', '(several may be chosen: answer with words, e.g. "Red, Blue")'] : [],
      )
      .join('\n'),
    choices,
    // Unanswered when it expires: the agent is told so (it waits on an answer), nothing is chosen for it.
    safeDefault: { type: 'cancel' },
    key: `claude|question|${toolUseId}|${index}`,
  });
}

/** The answer to one question, as AskUserQuestion takes it (an option's label, or the person's words). */
export function questionAnswer(question: Question, action: ReplyAction): string | null {
  if (action.type === 'text') return action.text.trim();
  if (action.type !== 'choice') return null;
  const option = question.options[action.number - 1];
  if (option) return option.label;
  if (action.number === question.options.length + 1 && action.text?.trim()) return action.text.trim();
  throw new Error(`choose an option from 1 to ${question.options.length}, or answer in words`);
}

/** ExitPlanMode's choices, as Claude offers them after a plan. */
export const PLAN_CHOICES: PromptChoice[] = [
  { number: 1, label: 'Yes, and auto-accept edits' },
  { number: 2, label: 'Yes, and manually approve edits' },
  { number: 3, label: 'No, keep planning' },
];

export function planPrompt(input: Record<string, unknown>, toolUseId: string): DetectedPrompt {
  const plan = typeof input.plan === 'string' ? input.plan : JSON.stringify(input, null, 2);
  return exactPrompt({
    kind: 'plan',
    summary: `Plan: ${plan.split('\n').find((line) => line.trim()) ?? ''}`,
    detail: plan,
    choices: PLAN_CHOICES,
    safeDefault: { type: 'choice', number: 3 },
    key: `claude|plan|${toolUseId}`,
  });
}

/** The permission mode a plan's approval leads to, or null when it is rejected. */
export function planDecision(action: ReplyAction): 'acceptEdits' | 'default' | null {
  if (action.type === 'choice' && action.number === 1) return 'acceptEdits';
  if ((action.type === 'choice' && action.number === 2) || action.type === 'yes') return 'default';
  return null;
}

/** A PreToolUse hook's answer: allow (with the answered input), or deny with the reason. */
export function hookReply(
  decision: { allow: true; updatedInput?: Record<string, unknown> } | { allow: false; reason: string },
) {
  const specific = decision.allow
    ? {
        hookEventName: 'PreToolUse',
        permissionDecision: 'allow',
        ...(decision.updatedInput ? { updatedInput: decision.updatedInput } : {}),
      }
    : { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: decision.reason };
  return { hookSpecificOutput: specific };
}

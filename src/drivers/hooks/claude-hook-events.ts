import type { AgentEvent } from '../../core/events.js';
import type { PromptChoice } from '../../core/events.js';
import { denialMessage, truncateExcerpt, type DetectedPrompt, type ReplyAction } from '../../core/prompt.js';
import { redactSecrets } from '../../core/redact.js';
import type { ClaudeHookPayload } from './claude-hook-payload.js';
import { describeSuggestions } from './permission-suggestions.js';
import { usageFromStatusLine, type ClaudeStatusLinePayload } from './claude-status-line.js';

export type { ClaudeHookPayload } from './claude-hook-payload.js';

/** Tools whose dialog is a question or a plan, answered on screen rather than with allow/deny. */
const ANSWERED_ON_SCREEN = new Set(['AskUserQuestion', 'ExitPlanMode']);

/**
 * A hook whose tool gets a progress note (seed 001): its PreToolUse, and again its PermissionRequest (the same
 * text is posted once), so the note is out before the prompt even when the PreToolUse post was lost. Not a
 * question or a plan, which arrive as prompts of their own.
 */
export function wantsProgressNote(event: string, payload: ClaudeHookPayload): boolean {
  return (
    (event === 'PreToolUse' || event === 'PermissionRequest') &&
    Boolean(payload.transcript_path) &&
    !ANSWERED_ON_SCREEN.has(payload.tool_name ?? '')
  );
}

/**
 * The options a hook's permission offers, as Claude numbers them on its own dialog: Yes; "Yes, and …" in the
 * words of Claude's own suggestions (only when it made some we can describe); No.
 */
export function hookPermissionChoices(payload: ClaudeHookPayload): {
  choices: PromptChoice[];
  grant: number | null;
  no: number;
} {
  const grant = describeSuggestions(payload.permission_suggestions);
  if (!grant) return { choices: [choice(1, 'Yes'), choice(2, 'No')], grant: null, no: 2 };
  return { choices: [choice(1, 'Yes'), choice(2, `Yes, and ${grant}`), choice(3, 'No')], grant: 2, no: 3 };
}

function choice(number: number, label: string): PromptChoice {
  return { number, label };
}

/** A PermissionRequest as an exact prompt: the full tool input is the detail. Null for on-screen dialogs. */
export function permissionPromptFromHook(payload: ClaudeHookPayload): DetectedPrompt | null {
  const tool = payload.tool_name ?? 'a tool';
  if (ANSWERED_ON_SCREEN.has(tool)) return null;
  const input = payload.tool_input ?? {};
  const summary = describeToolInput(tool, input);
  const detail = redactSecrets(`${tool}\n\n${summary}\n\n${JSON.stringify(input, null, 2)}`);
  const { choices, grant, no } = hookPermissionChoices(payload);
  return {
    kind: 'permission',
    confidence: 'exact',
    excerpt: truncateExcerpt(redactSecrets(`${tool}: ${summary}`)),
    detail,
    choices,
    safeDefault: { type: 'choice', number: no },
    ...(grant ? { allowForSessionChoice: grant } : {}),
    key: `hook|${payload.tool_use_id ?? ''}|${tool}|${JSON.stringify(input)}`,
    // The words of a "No" go back in the hook's answer, where lines are fine.
    multiline: true,
  };
}

/** One line saying what a tool call would do: the command, the file, the URL. */
export function describeToolInput(tool: string, input: Record<string, unknown>): string {
  const text = (key: string) => (typeof input[key] === 'string' ? (input[key] as string) : undefined);
  if (tool === 'Bash') return [text('command'), text('description')].filter(Boolean).join(' — ');
  const file = text('file_path') ?? text('path') ?? text('notebook_path');
  if (file) return file;
  return text('url') ?? text('pattern') ?? text('query') ?? JSON.stringify(input).slice(0, 160);
}

/**
 * The PermissionRequest hook's answer for a reply: allow (with Claude's own "don't ask again" suggestions for
 * the session when chosen) or deny with a reason. Null types nothing and lets Claude's dialog decide.
 */
export function permissionDecision(
  action: ReplyAction,
  payload: ClaudeHookPayload,
  decidedBy: string,
): object | null {
  const { grant, no } = hookPermissionChoices(payload);
  const number =
    action.type === 'choice' ? action.number : action.type === 'yes' ? 1 : action.type === 'no' ? no : null;
  if (number === null) return null;
  const decision =
    number === no
      ? {
          behavior: 'deny',
          message: denialMessage(decidedBy, action.type === 'choice' ? action.text : undefined),
        }
      : number === grant
        ? { behavior: 'allow', updatedPermissions: payload.permission_suggestions }
        : number === 1
          ? { behavior: 'allow' }
          : null;
  if (!decision) return null;
  return { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision } };
}

/** The stream events a hook adds: Stop gives the clean last message; tool hooks give activity. */
export function eventsFromHook(event: string, payload: ClaudeHookPayload): AgentEvent[] {
  switch (event) {
    case 'Stop':
      return payload.last_assistant_message
        ? [
            { type: 'message', text: payload.last_assistant_message, source: 'hook' },
            { type: 'status', state: 'idle' },
          ]
        : [{ type: 'status', state: 'idle' }];
    case 'UserPromptSubmit':
      return [{ type: 'status', state: 'busy' }];
    case 'PreToolUse':
      return [
        {
          type: 'activity',
          phase: 'start',
          tool: payload.tool_name ?? '',
          text: describeToolInput(payload.tool_name ?? '', payload.tool_input ?? {}),
        },
      ];
    case 'PostToolUse':
      return [
        {
          type: 'activity',
          phase: 'end',
          tool: payload.tool_name ?? '',
          text: describeToolInput(payload.tool_name ?? '', payload.tool_input ?? {}),
        },
      ];
    case 'Notification':
      return payload.message ? [{ type: 'activity', phase: 'progress', text: payload.message }] : [];
    case 'StatusLine':
      // Not a hook: Claude's statusLine command, run whenever its status line may change.
      return [{ type: 'status', usage: usageFromStatusLine(payload as ClaudeStatusLinePayload) }];
    default:
      return [];
  }
}

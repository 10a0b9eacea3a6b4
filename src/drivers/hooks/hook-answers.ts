import type { AgentEvent } from '../../core/events.js';
import type { DetectedPrompt } from '../../core/prompt.js';
import { eventsFromHook, permissionPromptFromHook, wantsProgressNote } from './claude-hook-events.js';
import { parseHookPayload, type ClaudeHookPayload } from './claude-hook-payload.js';
import {
  assistantTextBeforeRequestedTool,
  assistantTextBeforeTool,
  contextTokensAtAnswer,
} from './claude-transcript.js';

/** What one agent session does with its hooks. */
export interface HookSessionHandler {
  onEvent(event: AgentEvent): void;
  /** Claude's own session id (SessionStart), kept for --resume. */
  onAgentSessionId(id: string): void;
  /**
   * An exact permission prompt. Resolve with the hook's JSON answer, or null to let Claude's own dialog
   * decide. `aborted` fires if Claude gives up on the hook (someone answered at the terminal).
   */
  onPermissionRequest(
    prompt: DetectedPrompt,
    payload: ClaudeHookPayload,
    aborted: AbortSignal,
  ): Promise<object | null>;
  /**
   * What the agent said before the tool it is about to run (PreToolUse, read from its transcript). Only
   * sessions that want progress notes give this; the hook answers after it returned, so the note comes first.
   */
  onProgress?(text: string): void;
  /**
   * How many tokens the context held at the answer a Stop hook reports (from the transcript), told before
   * the answer itself, so the footer under it is current (Claude's status line updates only after it).
   */
  onContextTokens?(tokens: number): void;
}

/**
 * A hook post from a session's agent, its token checked already by the session host that relayed it: acted on,
 * and answered with the status and JSON body the hook client prints. `aborted` fires when the hook client went
 * away (Claude moved on: answered in its own dialog).
 */
export async function answerHookPost(
  handler: HookSessionHandler,
  event: string,
  body: unknown,
  aborted: AbortSignal,
): Promise<{ status: number; body: object | null }> {
  const parsed = parseHookPayload(body);
  if ('error' in parsed) return { status: 400, body: { error: `not a hook payload: ${parsed.error}` } };
  const answer = await dispatch(handler, event, parsed.payload, aborted);
  return answer === null ? { status: 204, body: null } : { status: 200, body: answer };
}

async function dispatch(
  handler: HookSessionHandler,
  event: string,
  payload: ClaudeHookPayload,
  aborted: AbortSignal,
): Promise<object | null> {
  if (event === 'SessionStart' && payload.session_id) handler.onAgentSessionId(payload.session_id);
  if (event === 'Stop' && handler.onContextTokens && payload.transcript_path) {
    const tokens = await contextTokensAtAnswer(payload.transcript_path, payload.last_assistant_message);
    if (tokens !== null) handler.onContextTokens(tokens);
  }
  for (const agentEvent of eventsFromHook(event, payload)) handler.onEvent(agentEvent);
  if (handler.onProgress && wantsProgressNote(event, payload)) {
    const file = payload.transcript_path!;
    const text =
      event === 'PreToolUse'
        ? await assistantTextBeforeTool(file, payload.tool_use_id)
        : await assistantTextBeforeRequestedTool(file, payload.tool_name ?? '', payload.tool_input);
    if (text) handler.onProgress(text);
  }
  if (event !== 'PermissionRequest') return null;
  const prompt = permissionPromptFromHook(payload);
  if (!prompt) return null;
  return handler.onPermissionRequest(prompt, payload, aborted);
}

import { z } from 'zod';

/**
 * A Claude Code hook payload as posted to the receiver (agent-facts hooks*.jsonl): every event has the common
 * fields; the rest depends on the event. Only the fields we act on are checked; others pass through (Claude
 * adds fields between versions). `null` stands for absent.
 */
export const claudeHookPayloadSchema = z.looseObject({
  session_id: z.string().optional(),
  transcript_path: z.string().optional(),
  cwd: z.string().optional(),
  hook_event_name: z.string().optional(),
  tool_name: z.string().optional(),
  tool_input: z.record(z.string(), z.unknown()).optional(),
  tool_use_id: z.string().optional(),
  permission_suggestions: z.array(z.unknown()).optional(),
  last_assistant_message: z.string().optional(),
  message: z.string().optional(),
  notification_type: z.string().optional(),
  prompt: z.string().optional(),
  source: z.string().optional(),
  /** SessionStart: the model's id; StatusLine: `{ id, display_name }`. */
  model: z
    .union([z.string(), z.looseObject({ id: z.string().optional(), display_name: z.string().optional() })])
    .optional(),
});

export type ClaudeHookPayload = z.infer<typeof claudeHookPayloadSchema>;

/** The payload, or a one-line reason it is not one (which field, what was expected). */
export function parseHookPayload(body: unknown): { payload: ClaudeHookPayload } | { error: string } {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    return { error: 'the body must be a JSON object' };
  const present = Object.fromEntries(Object.entries(body).filter(([, value]) => value !== null));
  const result = claudeHookPayloadSchema.safeParse(present);
  if (result.success) return { payload: result.data };
  const issue = result.error.issues[0]!;
  const where = issue.path.map(String).join('.') || 'body';
  return { error: `${where}: ${issue.message}`.replace(/\s+/g, ' ').slice(0, 200) };
}

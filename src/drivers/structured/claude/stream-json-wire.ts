import { z } from 'zod';

/**
 * Claude Code's stream-json protocol (`claude -p --input-format stream-json --output-format stream-json
 * --permission-prompt-tool stdio`), the parts agent-bridge reads: schemas once, types inferred from them
 * (agent-facts 10-13, Claude Code 2.1.197). Unknown fields pass; a message of an unknown shape is ignored.
 */

const textBlock = z.object({ type: z.literal('text'), text: z.string() });
const toolUseBlock = z.object({
  type: z.literal('tool_use'),
  id: z.string(),
  name: z.string(),
  input: z.record(z.string(), z.unknown()).catch({}),
});
const toolResultBlock = z.object({
  type: z.literal('tool_result'),
  tool_use_id: z.string(),
  content: z.unknown().optional(),
  is_error: z.boolean().optional(),
});
const anyBlock = z.object({ type: z.string() }).passthrough();

const messageUsage = z
  .object({
    input_tokens: z.number().optional(),
    cache_creation_input_tokens: z.number().optional(),
    cache_read_input_tokens: z.number().optional(),
  })
  .partial();

export const systemInit = z.object({
  type: z.literal('system'),
  subtype: z.literal('init'),
  session_id: z.string(),
  model: z.string().optional(),
  permissionMode: z.string().optional(),
});

export const assistantMessage = z.object({
  type: z.literal('assistant'),
  parent_tool_use_id: z.string().nullable().optional(),
  message: z.object({
    content: z.array(z.union([textBlock, toolUseBlock, anyBlock])),
    usage: messageUsage.optional(),
  }),
});

export const userMessage = z.object({
  type: z.literal('user'),
  parent_tool_use_id: z.string().nullable().optional(),
  message: z.object({ content: z.union([z.string(), z.array(z.union([toolResultBlock, anyBlock]))]) }),
});

export const resultMessage = z.object({
  type: z.literal('result'),
  subtype: z.string(),
  is_error: z.boolean().optional(),
  result: z.string().optional(),
  session_id: z.string().optional(),
  total_cost_usd: z.number().optional(),
  modelUsage: z
    .record(z.string(), z.object({ contextWindow: z.number().optional() }).passthrough())
    .optional(),
  errors: z.array(z.string()).optional(),
});

export const canUseToolRequest = z.object({
  subtype: z.literal('can_use_tool'),
  tool_name: z.string(),
  input: z.record(z.string(), z.unknown()),
  permission_suggestions: z.array(z.unknown()).optional(),
  tool_use_id: z.string().optional(),
  description: z.string().optional(),
  blocked_path: z.string().optional(),
});

export const hookCallbackRequest = z.object({
  subtype: z.literal('hook_callback'),
  callback_id: z.string(),
  input: z.object({
    hook_event_name: z.string(),
    tool_name: z.string().optional(),
    tool_input: z.record(z.string(), z.unknown()).optional(),
    tool_use_id: z.string().optional(),
  }),
});

export const controlRequest = z.object({
  type: z.literal('control_request'),
  request_id: z.string(),
  request: z.object({ subtype: z.string() }).passthrough(),
});

export const controlResponse = z.object({
  type: z.literal('control_response'),
  response: z.object({
    subtype: z.enum(['success', 'error']),
    request_id: z.string(),
    response: z.unknown().optional(),
    error: z.string().optional(),
  }),
});

export const questionInput = z.object({
  questions: z
    .array(
      z.object({
        question: z.string(),
        header: z.string().optional(),
        options: z.array(z.object({ label: z.string(), description: z.string().optional() })),
        multiSelect: z.boolean().optional(),
      }),
    )
    .min(1),
});

export const todoInput = z.object({
  todos: z.array(z.object({ content: z.string(), status: z.string().optional() })),
});

export type AssistantMessage = z.infer<typeof assistantMessage>;
export type UserMessage = z.infer<typeof userMessage>;
export type ResultMessage = z.infer<typeof resultMessage>;
export type CanUseToolRequest = z.infer<typeof canUseToolRequest>;
export type HookCallbackRequest = z.infer<typeof hookCallbackRequest>;
export type QuestionInput = z.infer<typeof questionInput>;
export type Question = QuestionInput['questions'][number];

/** The tools whose call is a question or a plan for the person, asked through a PreToolUse hook. */
export const ASKING_TOOLS = ['AskUserQuestion', 'ExitPlanMode'] as const;

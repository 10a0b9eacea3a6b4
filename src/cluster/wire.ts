import { z } from 'zod';
import { PROMPT_STATUSES } from '../core/prompt-state.js';
import { PROMPT_KINDS } from '../core/events.js';

/**
 * Every message on the bus, as checked by whoever receives it: a node's events by the hub, a hub's commands by
 * the node. Nothing is trusted because of where it came from; lengths are bounded; unknown keys are refused.
 */

const id = z.string().regex(/^[0-9a-f-]{8,64}$/, 'an id');
const ms = z.number().int().nonnegative();
const shortText = z.string().max(4_096);
const longText = z.string().max(256 * 1024);

const promptKind = z.enum(PROMPT_KINDS);

export const replyAction = z.discriminatedUnion('type', [
  z
    .object({
      type: z.literal('choice'),
      number: z.number().int().min(0).max(999),
      text: longText.optional(),
    })
    .strict(),
  z
    .object({ type: z.literal('choices'), numbers: z.array(z.number().int().min(0).max(999)).min(1).max(64) })
    .strict(),
  z.object({ type: z.literal('yes') }).strict(),
  z.object({ type: z.literal('no') }).strict(),
  z.object({ type: z.literal('enter') }).strict(),
  z.object({ type: z.literal('text'), text: longText }).strict(),
  z.object({ type: z.literal('default') }).strict(),
  z.object({ type: z.literal('escape') }).strict(),
  z.object({ type: z.literal('cancel') }).strict(),
  z
    .object({
      type: z.literal('sealed'),
      box: z
        .string()
        .max(64 * 1024)
        .nullable(),
      length: z.number().int().nonnegative(),
    })
    .strict(),
]);

const window = z.object({ usedPercent: z.number(), resetsAt: z.number().optional() }).strict();
const usage = z
  .object({
    model: shortText.optional(),
    contextPercent: z.number().optional(),
    contextWindow: z.number().optional(),
    costUsd: z.number().optional(),
    session: window.optional(),
    weekly: window.optional(),
  })
  .strict();

export const sessionSnapshot = z
  .object({
    id,
    agent: z.string().regex(/^[a-z0-9_-]{1,32}$/),
    cwd: shortText,
    label: shortText,
    hostname: z.string().max(255),
    startedAt: ms,
    endedAt: ms.nullable(),
    exitCode: z.number().int().nullable(),
    status: z.enum(['active', 'completed', 'crashed', 'terminated']),
    agentSessionId: shortText.nullable(),
    usage: usage.nullable(),
    answerKey: z.string().max(1024).nullable(),
    name: shortText.nullable(),
    firstPrompt: shortText.nullable(),
  })
  .strict();

export const promptSnapshot = z
  .object({
    id,
    sessionId: id,
    kind: promptKind,
    confidence: z.enum(['exact', 'high', 'medium', 'low']),
    source: shortText,
    excerpt: shortText,
    detail: longText,
    choices: z
      .array(
        z
          .object({
            number: z.number().int(),
            label: shortText,
            description: shortText.optional(),
            checkbox: z.literal(true).optional(),
          })
          .strict(),
      )
      .max(64),
    safeDefault: replyAction.nullable(),
    allowForSessionChoice: z.number().int().nullable(),
    status: z.enum(PROMPT_STATUSES),
    nonce: z.string().regex(/^[0-9a-f]{16,64}$/),
    nonceUsed: z.boolean(),
    createdAt: ms,
    expiresAt: ms,
    updatedAt: ms,
    decidedAt: ms.nullable(),
    decidedBy: shortText.nullable(),
    reply: replyAction.nullable(),
    note: shortText.nullable(),
    multiline: z.boolean(),
    secret: z.boolean(),
  })
  .strict();

export const messageEvent = z
  .object({
    id: z.number().int().positive(),
    kind: z.enum(['message', 'notice']),
    text: longText,
    createdAt: ms,
  })
  .strict();

const repoInfo = z.object({ name: shortText, agent: shortText, dir: shortText }).strict();
export const helloEvent = z
  .object({
    hostname: z.string().max(255),
    version: z.string().max(64),
    repos: z.array(repoInfo).max(500),
    agents: z.array(z.string().max(32)).max(64),
  })
  .strict();

/** What became of a hub's request on the node, for the people who made it. */
export const resultEvent = z
  .object({
    requestId: z.string().max(200),
    kind: z.enum(['answer', 'input', 'control']),
    ok: z.boolean(),
    /** For people: what was done, or why not. */
    text: shortText,
    by: shortText,
    /** The session a request started (its own events come separately). */
    started: id.optional(),
  })
  .strict();

const decidedBy = z.string().min(1).max(200);

export const answerCommand = z
  .object({
    requestId: z.string().max(200),
    promptId: id,
    sessionId: id,
    nonce: z.string().regex(/^[0-9a-f]{16,64}$/),
    reply: replyAction,
    decidedBy,
  })
  .strict();

export const inputCommand = z
  .object({ requestId: z.string().max(200), sessionId: id, text: longText, sentBy: decidedBy })
  .strict();

export const controlCommand = z.discriminatedUnion('action', [
  z
    .object({ requestId: z.string().max(200), action: z.literal('start'), repo: shortText, by: decidedBy })
    .strict(),
  z
    .object({
      requestId: z.string().max(200),
      action: z.literal('launch'),
      agent: z.string().regex(/^[a-z0-9_-]{1,32}$/),
      cwd: shortText,
      args: z.array(shortText).max(64).optional(),
      by: decidedBy,
      /** The hub's clock: after this the node refuses it (the hub has told the person it failed). */
      expiresAt: ms.optional(),
    })
    .strict(),
  z
    .object({
      requestId: z.string().max(200),
      action: z.enum(['stop', 'cancel']),
      sessionId: id,
      by: decidedBy,
    })
    .strict(),
]);

export type HelloEvent = z.infer<typeof helloEvent>;
export type ResultEvent = z.infer<typeof resultEvent>;
export type MessageEvent = z.infer<typeof messageEvent>;
export type AnswerCommand = z.infer<typeof answerCommand>;
export type InputCommand = z.infer<typeof inputCommand>;
export type ControlCommand = z.infer<typeof controlCommand>;

/** JSON in a message's bytes, checked against `schema`; the one-line reason when it is not that. */
export function decode<T>(
  schema: z.ZodType<T>,
  data: Uint8Array,
): { ok: true; value: T } | { ok: false; reason: string } {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(data));
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0];
  return { ok: false, reason: `${issue?.path.join('.') || 'payload'}: ${issue?.message ?? 'invalid'}` };
}

export function encode(value: unknown): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(value));
}

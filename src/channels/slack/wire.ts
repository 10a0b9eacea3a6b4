import { z } from 'zod';

/**
 * What agent-bridge takes from Slack, checked before use: every payload from the socket is hostile until it
 * fits one of these shapes (ids, timestamps and lengths included). Anything else is dropped and said once.
 */

/** Slack ids: users U…/W…, channels C…/G…/D…, teams T…, bots B…, apps A…, views V…, files F…. */
export const slackId = z.string().regex(/^[A-Z0-9]{2,32}$/, 'a Slack id');
export const userId = z.string().regex(/^[UW][A-Z0-9]{2,31}$/, 'a Slack user id (U…)');
export const conversationId = z.string().regex(/^[CGD][A-Z0-9]{2,31}$/, 'a Slack channel id (C…)');
/** A message's timestamp, its id within a channel: `1712345678.123456`. */
export const messageTs = z.string().regex(/^\d{1,12}\.\d{1,8}$/, 'a Slack message timestamp');

const person = z.object({
  id: userId,
  username: z.string().max(200).optional(),
  name: z.string().max(200).optional(),
});

export const slackFile = z.object({
  id: slackId,
  name: z.string().max(1_000).nullish(),
  title: z.string().max(1_000).nullish(),
  size: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
  url_private_download: z.string().max(4_000).optional(),
  url_private: z.string().max(4_000).optional(),
  mode: z.string().max(50).optional(),
});
export type SlackFile = z.infer<typeof slackFile>;

/** A `message` event (messages.channels, .groups, .im), with the subtypes agent-bridge looks at. */
export const messageEvent = z.object({
  type: z.literal('message'),
  subtype: z.string().max(100).optional(),
  channel: conversationId,
  channel_type: z.string().max(20).optional(),
  user: userId.optional(),
  bot_id: z.string().max(32).optional(),
  text: z.string().max(40_000).optional(),
  ts: messageTs,
  thread_ts: messageTs.optional(),
  files: z.array(slackFile).max(20).optional(),
  /** message_deleted: the message that went, and what it was. */
  deleted_ts: messageTs.optional(),
  previous_message: z.object({ ts: messageTs, thread_ts: messageTs.optional() }).passthrough().optional(),
  /** message_changed: the message as it is now (a thread's deleted parent becomes a `tombstone`). */
  message: z
    .object({ ts: messageTs, subtype: z.string().max(100).optional(), thread_ts: messageTs.optional() })
    .passthrough()
    .optional(),
});
export type MessageEvent = z.infer<typeof messageEvent>;

export const blockActions = z.object({
  type: z.literal('block_actions'),
  user: person,
  trigger_id: z.string().max(200).optional(),
  response_url: z.string().max(2_000).optional(),
  container: z
    .object({
      type: z.string().max(50),
      message_ts: messageTs.optional(),
      channel_id: conversationId.optional(),
      thread_ts: messageTs.optional(),
      view_id: slackId.optional(),
    })
    .passthrough(),
  channel: z.object({ id: conversationId }).passthrough().optional(),
  message: z.object({ ts: messageTs, thread_ts: messageTs.optional() }).passthrough().optional(),
  view: z
    .object({ id: slackId, type: z.string().max(20) })
    .passthrough()
    .optional(),
  actions: z
    .array(
      z
        .object({
          action_id: z.string().max(255),
          type: z.string().max(50),
          value: z.string().max(2_000).optional(),
        })
        .passthrough(),
    )
    .min(1)
    .max(25),
});
export type BlockActions = z.infer<typeof blockActions>;

export const viewSubmission = z.object({
  type: z.literal('view_submission'),
  user: person,
  view: z
    .object({
      id: slackId,
      callback_id: z.string().max(255),
      private_metadata: z.string().max(3_000),
      state: z.object({
        values: z.record(
          z.string().max(255),
          z.record(
            z.string().max(255),
            z.object({ type: z.string().max(50), value: z.string().max(4_000).nullish() }).passthrough(),
          ),
        ),
      }),
    })
    .passthrough(),
});
export type ViewSubmission = z.infer<typeof viewSubmission>;

export const slashCommand = z.object({
  command: z.string().max(100),
  text: z.string().max(4_000),
  user_id: userId,
  user_name: z.string().max(200).optional(),
  channel_id: conversationId,
  response_url: z.string().max(2_000).optional(),
});
export type SlashCommand = z.infer<typeof slashCommand>;

export const appHomeOpened = z.object({
  type: z.literal('app_home_opened'),
  user: userId,
  tab: z.string().max(20).optional(),
});

/** Where an "Other…" form was opened from, carried in the modal's private_metadata (which Slack returns). */
export const formOrigin = z.object({
  c: z.string().regex(/^(dm:[UW][A-Z0-9]{2,31}|[CGD][A-Z0-9]{2,31})$/),
  t: messageTs.optional(),
  m: messageTs,
});
export type FormOrigin = z.infer<typeof formOrigin>;

/** The parsed value, or null (with the first problem) for anything that does not fit. */
export function parse<T>(
  schema: z.ZodType<T>,
  value: unknown,
): { ok: true; value: T } | { ok: false; why: string } {
  const result = schema.safeParse(value);
  if (result.success) return { ok: true, value: result.data };
  const issue = result.error.issues[0];
  return { ok: false, why: `${issue?.path.join('.') || 'payload'}: ${issue?.message ?? 'unexpected shape'}` };
}

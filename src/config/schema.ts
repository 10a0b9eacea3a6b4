import { z } from 'zod';

/** Durations as people write them: 90s, 10m, 2h, or a number of seconds. */
export const duration = z.union([
  z.number().nonnegative(),
  z.string().regex(/^\d+(?:\.\d+)?\s*(ms|s|m|h)$/, 'a duration such as 30s, 10m or 2h'),
]);

const telegram = z
  .object({
    token: z.string().min(1, 'the bot token from @BotFather'),
    allowed_users: z
      .array(z.union([z.number().int(), z.string().regex(/^\d+$/)]))
      .min(1, 'at least one Telegram user id'),
    chat_ids: z.array(z.union([z.number().int(), z.string().regex(/^-?\d+$/)])).optional(),
    api_root: z.string().url().optional(),
  })
  .strict();

const rateLimit = z
  .object({
    enabled: z.boolean().default(true),
    user_rate: z.number().positive().default(0.5),
    user_burst: z.number().int().positive().default(3),
    channel_rate: z.number().positive().default(2),
    channel_burst: z.number().int().positive().default(10),
  })
  .strict();

const promptTtl = z
  .object({
    permission: duration,
    question: duration,
    plan: duration,
    yes_no: duration,
    confirm_enter: duration,
    multiple_choice: duration,
    free_text: duration,
    unknown: duration,
  })
  .partial()
  .strict();

const defaults = z
  .object({
    agent: z.string().default('claude'),
    output_threshold: z.number().int().positive().default(1500),
    idle_timeout: duration.default('10m'),
    resume: z.boolean().default(true),
    rate_limit: rateLimit.prefault({}),
    prompt_ttl: promptTtl.prefault({}),
  })
  .strict();

const repo = z
  .object({
    name: z.string().min(1),
    dir: z.string().min(1),
    agent: z.string().optional(),
    driver: z.enum(['terminal', 'structured']).optional(),
    args: z.array(z.string()).optional(),
    channels: z.record(z.string(), z.array(z.union([z.string(), z.number()]))).optional(),
  })
  .strict();

export const configSchema = z
  .object({
    defaults: defaults.prefault({}),
    channels: z.object({ telegram: telegram.optional() }).passthrough().prefault({}),
    repos: z.array(repo).default([]),
  })
  .strict();

export type Config = z.infer<typeof configSchema>;
export type TelegramConfig = z.infer<typeof telegram>;

export { durationMs } from './duration.js';

import { MACHINE_NAME } from '../core/machine-name.js';
import { z } from 'zod';
import { channelIdProblem } from './channel-ids.js';
import { durationMs, MAX_TIMER_MS, MAX_TIMER_SECONDS } from './duration.js';

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

/** Discord ids are snowflakes: up to 20 digits, kept as strings so they are never rounded. */
const UNQUOTED = 'put long ids in quotes ("223456789012345678"): unquoted, YAML rounds them';
const exactNumber = z.number().refine((n) => Number.isSafeInteger(n), UNQUOTED);
const snowflake = z.union([z.string().regex(/^\d{5,20}$/, 'a Discord id (digits)'), exactNumber]);

const discord = z
  .object({
    /** Default: the DISCORD_BOT_TOKEN environment variable. */
    token: z
      .string()
      .min(1, 'the bot token from the Discord developer portal (Bot → Reset Token)')
      .optional(),
    /** The owner first; everyone listed may drive sessions and answer prompts. */
    allowed_users: z.array(snowflake).min(1, 'at least one Discord user id'),
    /** Where prompts of `run --approve-from discord` go (default: each allowed user's DMs with the bot). */
    channel_ids: z.array(snowflake).optional(),
    /** A channel for the control panel: one status message per project with Start / Stop. */
    general_channel: snowflake.optional(),
    /** Another REST root (e.g. a local fake), `http://host:port/api`; the gateway address comes from it. */
    api_root: z.string().url().optional(),
  })
  .strict();

/** Slack ids are uppercase letters and digits: people U…/W…, channels C… (public), G… (private), D… (DMs). */
const slackUser = z
  .string()
  .regex(/^[UW][A-Z0-9]{2,31}$/, 'a Slack member id (U…: profile → ⋮ → Copy member ID)');
const slackChannel = z
  .string()
  .regex(/^[CGD][A-Z0-9]{2,31}$/, 'a Slack channel id (C…: channel details → Copy channel ID)');

const slack = z
  .object({
    /** The bot token (`xoxb-…`); default: the SLACK_BOT_TOKEN environment variable. */
    token: z
      .string()
      .regex(/^xoxb-/, 'the bot token (xoxb-…: OAuth & Permissions → Bot User OAuth Token)')
      .optional(),
    /** The app-level token for Socket Mode (`xapp-…`); default: the SLACK_APP_TOKEN environment variable. */
    app_token: z
      .string()
      .regex(/^xapp-/, 'the app-level token (xapp-…: Basic Information → App-Level Tokens)')
      .optional(),
    /** Slack member ids; everyone listed may drive sessions and answer prompts. */
    allowed_users: z.array(slackUser).min(1, 'at least one Slack member id'),
    /** Where prompts of `run --approve-from slack` go (default: each allowed user's DMs with the app). */
    channel_ids: z.array(slackChannel).optional(),
    /** Another Web API root (e.g. a local fake), `http://host:port/api/`; the socket URL comes from it. */
    api_root: z.string().url().optional(),
  })
  .strict();

/** How an agent treats permissions (Claude Code's modes; `bypassPermissions` skips every prompt). */
export const permissionMode = z.enum(['default', 'acceptEdits', 'plan', 'bypassPermissions']);
const isolation = z.enum(['none', 'worktree']);

/** Settings a thread may have of its own; unset ones come from the project's thread defaults, then the project. */
const threadDefaults = z
  .object({
    model: z.string().optional(),
    permission: permissionMode.optional(),
    isolation: isolation.optional(),
  })
  .strict();

const threadEntry = threadDefaults
  .extend({
    /** The thread's id (Discord thread, Telegram forum topic, Slack thread: its first message's ts). */
    id: z.union([z.string().regex(/^\d+(\.\d+)?$/), z.number().int().positive()], {
      error: 'a thread id: digits; a Slack thread\'s in quotes, e.g. "1712345678.123456"',
    }),
    channel: z.enum(['discord', 'telegram', 'slack']).optional(),
    /** The chat the thread is in. */
    chat: z.union([z.string(), z.number()]).optional(),
    name: z.string().optional(),
    /** Another folder for this thread (two layers: the thread's own, else the project's). */
    dir: z.string().min(1).optional(),
    startup: z.boolean().optional(),
  })
  .strict();

const rateLimit = z
  .object({
    enabled: z.boolean().default(true),
    user_rate: z.number().positive().default(0.5),
    user_burst: z.number().int().positive().default(3),
    channel_rate: z.number().positive().default(2),
    channel_burst: z.number().int().positive().default(10),
    /** Count in Redis, shared by every hub that names it (limits that hold across hubs): redis://host:6379. */
    redis: z
      .string()
      .regex(/^rediss?:\/\/\S+$/, 'a Redis URL: redis://host:6379 (rediss:// for TLS)')
      .optional(),
  })
  .strict();

/** Whether the union above took it (zod runs a refinement on a value it already refused, too). */
function isDuration(value: unknown): value is string | number {
  return duration.safeParse(value).success;
}

/** A prompt's TTL, an idle timeout: a timer, no longer than one can wait. */
const timer = duration.refine(
  (value) => !isDuration(value) || durationMs(value) <= MAX_TIMER_MS,
  `at most ${MAX_TIMER_SECONDS} seconds (${Math.floor(MAX_TIMER_SECONDS / 3600)}h, just under 25 days)`,
);

/** A prompt's time to live: a timer of at least a second (none would expire each prompt at once). */
const ttl = timer.refine(
  (value) => !isDuration(value) || durationMs(value) >= 1000,
  'at least 1s (0 would expire each prompt at once)',
);

const promptTtl = z
  .object({
    permission: ttl,
    question: ttl,
    plan: ttl,
    yes_no: ttl,
    confirm_enter: ttl,
    multiple_choice: ttl,
    free_text: ttl,
    unknown: ttl,
  })
  .partial()
  .strict();

const defaults = z
  .object({
    agent: z.string().default('claude'),
    output_threshold: z.number().int().positive().default(1500),
    /** 0: a repository's agent never stops for being idle. */
    idle_timeout: timer.default('10m'),
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
    /** auto: the agent's own protocol where the installed version speaks it, else its screen. */
    driver: z.enum(['auto', 'terminal', 'structured']).optional(),
    /** The agent's command line, for agents found by it (acp, custom): a list, or one line split at spaces. */
    command: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
    args: z.array(z.string()).optional(),
    /** Chats per channel; each id as the channel writes it (add-repo --channel takes the same). */
    channels: z
      .record(z.string(), z.array(z.union([z.string(), exactNumber])))
      .superRefine((channels, ctx) => {
        for (const [channel, ids] of Object.entries(channels))
          ids.forEach((id, i) => {
            const problem = channelIdProblem(channel, String(id));
            if (problem) ctx.addIssue({ code: 'custom', message: problem, path: [channel, i] });
          });
      })
      .optional(),
    model: z.string().optional(),
    permission: permissionMode.optional(),
    isolation: isolation.optional(),
    /** Start the agent when agent-bridge starts (default: at the first message). */
    startup: z.boolean().optional(),
    /** Defaults for sessions started in the repository's chat threads. */
    thread: threadDefaults.optional(),
    /** Threads with settings of their own; threads created in chat are added here. */
    threads: z.array(threadEntry).optional(),
  })
  .strict();

/** Many machines over NATS (see the README's "Many machines"): a hub, or a node with agents. */
const machineName = z.string().regex(MACHINE_NAME, 'a name of 1 to 32 lowercase letters, digits, - or _');
const cluster = z
  .object({
    /** The NATS server(s): nats://host:4222 or tls://host:4222, several separated by commas. */
    nats: z.string().min(1, 'the NATS server, e.g. nats://hub.example:4222'),
    /** This machine is a node of that name (it hosts agents); without it, the hub (chats and web UI). */
    node: machineName.optional(),
    /** The hub's name, when there are several hubs (default hub). */
    hub: machineName.optional(),
    /** This machine's key: the nkey seed file (or a .creds file) agent-bridge cluster init wrote for it. */
    credentials: z.string().min(1, 'the key file agent-bridge cluster init wrote for this machine'),
    /** TLS to the server: the CA that signed its certificate; a client certificate and key if it asks. */
    tls: z
      .object({
        ca: z.string().min(1).optional(),
        cert: z.string().min(1).optional(),
        key: z.string().min(1).optional(),
      })
      .strict()
      .optional(),
  })
  .strict()
  .refine((c) => !(c.node && c.hub), { message: 'a machine is a node or a hub: remove node: or hub:' });

export const configSchema = z
  .object({
    defaults: defaults.prefault({}),
    channels: z
      .object({ telegram: telegram.optional(), discord: discord.optional(), slack: slack.optional() })
      .strict()
      .prefault({}),
    repos: z.array(repo).default([]),
    cluster: cluster.optional(),
  })
  .strict();

export type Config = z.infer<typeof configSchema>;
export type TelegramConfig = z.infer<typeof telegram>;
export type DiscordConfig = z.infer<typeof discord>;
export type SlackConfig = z.infer<typeof slack>;
export type RepoConfig = z.infer<typeof repo>;
export type ClusterConfig = z.infer<typeof cluster>;
export type ThreadEntry = z.infer<typeof threadEntry>;
export type PermissionMode = z.infer<typeof permissionMode>;
export type Isolation = z.infer<typeof isolation>;

export { durationMs } from './duration.js';

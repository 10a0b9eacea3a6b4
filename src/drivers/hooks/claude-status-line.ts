import type { AgentUsage, RateLimitWindow } from '../../core/events.js';

/**
 * What Claude Code 2.1.197 pipes to a statusLine command (seen with the real CLI; only the fields we read).
 * `context_window.used_percentage` is null before the first answer. `rate_limits` appears only for Claude.ai
 * subscribers, once an answer carried the plan's `anthropic-ratelimit-unified-{5h,7d}-*` headers; `resets_at`
 * is in Unix seconds there.
 */
export interface ClaudeStatusLinePayload {
  session_id?: string;
  model?: { id?: string; display_name?: string };
  context_window?: { used_percentage?: number | null; context_window_size?: number };
  cost?: { total_cost_usd?: number };
  rate_limits?: {
    five_hour?: { used_percentage?: number; resets_at?: number | string };
    seven_day?: { used_percentage?: number; resets_at?: number | string };
  };
}

/** The agent's usage from a statusLine payload (untrusted shape: anything unexpected is left out). */
export function usageFromStatusLine(payload: ClaudeStatusLinePayload): AgentUsage {
  const usage: AgentUsage = {};
  const model = text(payload.model?.display_name) ?? text(payload.model?.id);
  if (model) usage.model = model;
  const context = number(payload.context_window?.used_percentage);
  if (context !== undefined) usage.contextPercent = context;
  const window = number(payload.context_window?.context_window_size);
  if (window !== undefined && window > 0) usage.contextWindow = window;
  const cost = number(payload.cost?.total_cost_usd);
  if (cost !== undefined) usage.costUsd = cost;
  const session = rateWindow(payload.rate_limits?.five_hour);
  if (session) usage.session = session;
  const weekly = rateWindow(payload.rate_limits?.seven_day);
  if (weekly) usage.weekly = weekly;
  return usage;
}

function rateWindow(
  raw: { used_percentage?: unknown; resets_at?: unknown } | undefined,
): RateLimitWindow | null {
  const used = number(raw?.used_percentage);
  if (used === undefined) return null;
  const resetsAt = timestamp(raw?.resets_at);
  return resetsAt === undefined ? { usedPercent: used } : { usedPercent: used, resetsAt };
}

/** Unix seconds (what Claude sends), Unix milliseconds, or an ISO date, as Unix milliseconds. */
function timestamp(value: unknown): number | undefined {
  if (typeof value === 'string') {
    const parsed = Date.parse(value);
    return Number.isNaN(parsed) ? undefined : parsed;
  }
  const n = number(value);
  if (n === undefined || n <= 0) return undefined;
  return n < 1e12 ? n * 1000 : n;
}

const number = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;

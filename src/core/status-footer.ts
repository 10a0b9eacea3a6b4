import type { AgentUsage, RateLimitWindow } from './events.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * The footer under an agent's message in chat (seed 001), without its 📊 (delivery adds it):
 * `Opus 4.8 50% │ session:45%(2h30m) │ weekly:12%(5d03h)`. Parts the agent did not report are left out, and a
 * window that already reset is too (its percentage is stale). Null when there is nothing to show.
 */
export function formatStatusFooter(usage: AgentUsage | null | undefined, now: number): string | null {
  if (!usage) return null;
  const head = [
    usage.model?.trim() || undefined,
    usage.contextPercent !== undefined ? `${Math.round(usage.contextPercent)}%` : undefined,
  ]
    .filter(Boolean)
    .join(' ');
  const parts = [
    head,
    formatWindow('session', usage.session, now),
    formatWindow('weekly', usage.weekly, now),
  ].filter((part): part is string => Boolean(part));
  return parts.length > 0 ? parts.join(' │ ') : null;
}

function formatWindow(name: string, window: RateLimitWindow | undefined, now: number): string | null {
  if (!window || !Number.isFinite(window.usedPercent)) return null;
  const percent = `${name}:${Math.round(window.usedPercent)}%`;
  if (window.resetsAt === undefined) return percent;
  const left = window.resetsAt - now;
  return left > 0 ? `${percent}(${formatTimeLeft(left)})` : null;
}

/** Time until a reset, coarse and compact: `5d03h`, `2h30m`, `12m` (`0m` under a minute). */
export function formatTimeLeft(ms: number): string {
  const total = Math.max(0, ms);
  const days = Math.floor(total / DAY);
  const hours = Math.floor((total % DAY) / HOUR);
  const minutes = Math.floor((total % HOUR) / MINUTE);
  if (days > 0) return `${days}d${pad(hours)}h`;
  if (hours > 0) return `${hours}h${pad(minutes)}m`;
  return `${minutes}m`;
}

const pad = (n: number) => String(n).padStart(2, '0');

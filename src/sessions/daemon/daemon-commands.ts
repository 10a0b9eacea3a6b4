import { formatStatusFooter } from '../../core/status-footer.js';
import type { Store } from '../../store/store.js';
import type { DaemonRepo } from './daemon-types.js';
import type { RepoSession } from './repo-session.js';
import type { ThreadSessions } from './thread-sessions.js';

export interface CommandContext {
  /** The session of the chat (or thread) the command was typed in. */
  session: RepoSession;
  /** Repositories mapped to the chat. */
  repos: DaemonRepo[];
  store: Store;
  threads: ThreadSessions;
  /** Makes `name` the repository plain messages in this chat go to. */
  select: (name: string) => void;
  /** Now, for the time left in the agent's rate-limit windows. */
  now: number;
}

/**
 * The daemon's bridge commands (seed 000): /status, /cancel, /restart, /select, /switch, /help, and
 * /worktrees. Null for the others (/sessions, /approvals): the relay's chat commands answer those.
 */
export async function bridgeCommand(
  command: string,
  args: string,
  ctx: CommandContext,
): Promise<string | null> {
  const { session } = ctx;
  switch (command) {
    case 'status':
      return statusText(session, ctx.store, ctx.now);
    case 'cancel':
      return session.cancel() ? `${session.repo.name}: interrupted` : `${session.repo.name}: not running`;
    case 'restart':
      await session.stop('restarted from chat');
      return `${session.repo.name}: stopped; the next message starts ${session.repo.agent.displayName} again`;
    case 'select': {
      const chosen = ctx.repos.find((r) => r.name === args.trim());
      if (!chosen) return `Usage: /select <repo> — one of: ${ctx.repos.map((r) => r.name).join(', ')}`;
      ctx.select(chosen.name);
      return `Messages here now go to ${chosen.name} (${chosen.agent.displayName})`;
    }
    case 'switch':
      return switchText(args, ctx);
    case 'worktrees':
      return worktreesText(ctx);
    case 'help':
      return HELP;
    default:
      return null;
  }
}

/**
 * In a chat the daemon maps, messages go to a repository (/select), so /switch to a session chooses its
 * repository, if that is one of the chat's; any other session is said not to be this chat's.
 */
function switchText(args: string, ctx: CommandContext): string {
  const prefix = args.trim().toLowerCase();
  const sessions = ctx.store.sessions.list();
  const ours = sessions.filter((s) => ctx.repos.some((repo) => repo.name === s.label));
  const choices = ours.map((s) => `${s.id.slice(0, 8)} (${s.label})`).join(', ') || 'none running';
  const matches = prefix ? sessions.filter((s) => s.id.startsWith(prefix)) : [];
  if (matches.length !== 1)
    return `${prefix ? `No one session starts with ${prefix}` : 'Usage: /switch <session id>'} — one of: ${choices}`;
  const chosen = matches[0]!;
  const repo = ctx.repos.find((r) => r.name === chosen.label);
  if (!repo)
    return `Session ${chosen.id.slice(0, 8)} (${chosen.label}) is not one of this chat's: messages here go to ${ctx.repos.map((r) => r.name).join(' or ')} (/select <repo>)`;
  ctx.select(repo.name);
  return `Messages here now go to ${repo.name} (session ${chosen.id.slice(0, 8)}, ${repo.agent.displayName})`;
}

function statusText(repo: RepoSession, store: Store, now: number): string {
  const waiting = repo.sessionId ? store.prompts.open(repo.sessionId).length : 0;
  const idle = Math.round(repo.idleForMs() / 1000);
  const driver = repo.driverKind ? ` (${repo.driverKind} driver)` : '';
  const line = `${repo.repo.name} · ${repo.repo.agent.displayName}${driver} · ${repo.state} · idle ${idle} s · ${waiting} prompt(s) waiting · ${repo.repo.dir}`;
  const usage = repo.sessionId ? store.sessions.get(repo.sessionId)?.usage : null;
  const footer = formatStatusFooter(usage, now);
  const cost = usage?.costUsd !== undefined ? `cost $${usage.costUsd.toFixed(4)}` : null;
  const report = [footer, cost].filter(Boolean).join(' │ ');
  return report ? `${line}\n📊 ${report}` : line;
}

async function worktreesText(ctx: CommandContext): Promise<string> {
  const lines: string[] = [];
  for (const repo of ctx.repos) {
    for (const view of await ctx.threads.list(repo.name)) {
      if (!view.worktree) continue;
      const tree = view.worktree;
      const changes = !tree.exists
        ? 'missing'
        : tree.dirty
          ? `${tree.changes} uncommitted change(s)`
          : 'clean';
      lines.push(
        `🌿 ${repo.name} · thread ${view.record.threadId} · ${tree.branch ?? '?'} · ${view.state} · ${changes} · ${view.record.worktreePath}`,
      );
    }
  }
  return lines.length > 0 ? lines.join('\n') : 'No thread worktrees.';
}

const HELP = [
  'Messages go to the agent of the repository mapped to this chat; a thread gets a session of its own. Bridge commands:',
  '/status — agent, driver, state, idle time, waiting prompts, model, context, limits and cost · /cancel — interrupt · /restart — stop; the next message starts it',
  '/select <repo> — choose the repository when several are mapped here · /worktrees — thread worktrees, branches and changes',
  "/sessions, /switch, /approvals — as usual · !skill args — runs the agent's own /skill · any other /command goes to the agent as typed",
].join('\n');

import type { ChatTarget, ChatUser } from '../channels/contract.js';
import { promptHeadline } from '../core/prompt-headline.js';
import type { SessionRecord } from '../store/session-store.js';
import type { Store } from '../store/store.js';

/** Chat commands every channel understands (seed 004 §7.4 plus /approvals and /help). */
export const CHAT_COMMANDS = ['sessions', 'switch', 'status', 'approvals', 'help'] as const;

export interface CommandContext {
  store: Store;
  channel: string;
  target: ChatTarget;
  from: ChatUser;
  /** Active sessions this channel serves. */
  sessions: () => SessionRecord[];
}

/** `/cmd args` (and Telegram's `/cmd@botname args`); null for anything else. */
export function parseCommand(text: string): { command: string; args: string } | null {
  const match = /^\/([a-z_]+)(?:@\w+)?(?:\s+([\s\S]*))?$/i.exec(text.trim());
  if (!match) return null;
  return { command: match[1]!.toLowerCase(), args: (match[2] ?? '').trim() };
}

export function selectedKey(target: ChatTarget): string {
  return `selected:${target.chatId}:${target.threadId ?? ''}`;
}

/** The session plain text goes to: the one chosen with /switch, else the only one. */
export function targetSession(ctx: CommandContext): SessionRecord | 'none' | 'ambiguous' {
  const sessions = ctx.sessions();
  const selected = ctx.store.channels.getState(ctx.channel, selectedKey(ctx.target));
  const chosen = sessions.find((s) => s.id === selected);
  if (chosen) return chosen;
  if (sessions.length === 1) return sessions[0]!;
  return sessions.length === 0 ? 'none' : 'ambiguous';
}

/** Runs a chat command and returns the reply text. */
export function runChatCommand(command: string, args: string, ctx: CommandContext): string {
  const sessions = ctx.sessions();
  switch (command) {
    case 'sessions':
      return sessions.length === 0
        ? 'No agent sessions are running.'
        : sessions.map((s) => describeSession(s, ctx)).join('\n');
    case 'switch': {
      const matches = sessions.filter((s) => s.id.startsWith(args.toLowerCase()));
      if (!args || matches.length !== 1) {
        const choices = sessions.map((s) => s.id.slice(0, 8)).join(', ') || 'none running';
        const what = !args ? 'Usage: /switch <session id>' : `No one session starts with ${args}`;
        return `${what} — one of: ${choices}`;
      }
      ctx.store.channels.setState(ctx.channel, selectedKey(ctx.target), matches[0]!.id);
      return `Messages here now go to ${describeSession(matches[0]!, ctx)}`;
    }
    case 'status':
    case 'approvals': {
      const open = ctx.store.prompts.open().filter((p) => sessions.some((s) => s.id === p.sessionId));
      const header = command === 'status' ? `${sessions.length} session(s) running.\n` : '';
      if (open.length === 0) return `${header}No prompts are waiting.`;
      return (
        header +
        open.map((p) => `• ${p.id.slice(0, 8)} ${p.kind}: ${promptHeadline(p.excerpt, 120)}`).join('\n')
      );
    }
    case 'help':
      return [
        'agent-bridge relays your coding agents. Prompts arrive here with buttons; tap one to answer.',
        'Reply to a prompt message to answer with text. Other messages are typed into the session.',
        '/sessions — running sessions · /switch <id> — pick the session for your messages',
        '/status — sessions and waiting prompts · /approvals — waiting prompts',
      ].join('\n');
    default:
      return `Unknown command /${command}. Try /help.`;
  }
}

function describeSession(session: SessionRecord, ctx: CommandContext): string {
  const selected =
    ctx.store.channels.getState(ctx.channel, selectedKey(ctx.target)) === session.id ? ' ◀' : '';
  const waiting = ctx.store.prompts.open(session.id).length;
  return `${session.id.slice(0, 8)} · ${session.agent} · ${session.label} · ${session.host}${waiting ? ` · ${waiting} waiting` : ''}${selected}`;
}

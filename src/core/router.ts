/**
 * Classifies an incoming chat or terminal line (seed 000's router): a bridge command that agent-bridge handles
 * itself, or text for the agent. Pure and stateless.
 *
 * - `/status`, `/cancel`, `/restart`, `/help`, `/select <repo>` (seed 000) and agent-bridge's chat commands
 *   `/sessions`, `/switch <id>`, `/approvals`, `/worktrees` are bridge commands, case-insensitive; Telegram's
 *   `/cmd@botname` form is accepted. Arguments are the rest of the message, trimmed (they may span lines).
 * - Any other `/command` goes to the agent unchanged (it is the agent's own slash command), except that a
 *   Telegram `@botname` suffix on the command is dropped: `/compact@my_bot now` → `/compact now`.
 * - `!skill args` becomes `/skill args` for the agent, so chat apps whose own `/` menu would swallow the message
 *   can still reach the agent's slash commands, including ones named like ours (`!status` → the agent's `/status`).
 * - `!!text` sends a literal `!text` (e.g. Claude Code's `!` shell mode); `!` alone, or `!` followed by a space,
 *   is ordinary text.
 * - Everything else goes to the agent exactly as typed.
 */

export const BRIDGE_COMMANDS = [
  'status',
  'cancel',
  'restart',
  'help',
  'select',
  'sessions',
  'switch',
  'approvals',
  'worktrees',
] as const;

export type BridgeCommand = (typeof BRIDGE_COMMANDS)[number];

export type Route =
  { type: 'bridge'; command: BridgeCommand; args: string } | { type: 'agent'; text: string };

const bridgeCommands: ReadonlySet<string> = new Set(BRIDGE_COMMANDS);

export function isBridgeCommand(name: string): name is BridgeCommand {
  return bridgeCommands.has(name);
}

/** `/name`, an optional `@botname`, then whitespace and arguments or the end. Names may hold `-` and `:`. */
const SLASH = /^\/([A-Za-z0-9_][\w:-]*)(?:@(\w+))?(?=\s|$)([\s\S]*)$/;

export function routeMessage(text: string): Route {
  const trimmed = text.trim();

  const slash = SLASH.exec(trimmed);
  if (slash) {
    const [, name = '', bot, rest = ''] = slash;
    const command = name.toLowerCase();
    if (isBridgeCommand(command)) return { type: 'bridge', command, args: rest.trim() };
    // The agent's own command: unchanged, apart from a Telegram mention it would not understand.
    return { type: 'agent', text: bot === undefined ? text : `/${name}${rest}` };
  }

  if (trimmed.startsWith('!!')) return { type: 'agent', text: trimmed.slice(1) };
  if (/^![^\s!]/.test(trimmed)) return { type: 'agent', text: `/${trimmed.slice(1)}` };

  return { type: 'agent', text };
}

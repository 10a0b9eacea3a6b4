import { writeFileSync } from 'node:fs';

/** The hook events agent-bridge listens to (agent-facts: all seen firing in Claude Code 2.1). */
export const CLAUDE_HOOK_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PermissionRequest',
  'PostToolUse',
  'Notification',
  'Stop',
  'SessionEnd',
] as const;
export type ClaudeHookEvent = (typeof CLAUDE_HOOK_EVENTS)[number];

/**
 * A settings file for `claude --settings <file>` (changes nothing in the user's own settings) whose hooks
 * run the hook client. PermissionRequest may wait for a person, so its timeout outlasts the prompt's TTL.
 */
export function claudeHookSettings(clientCommand: string[], permissionTimeoutSeconds: number): object {
  const quoted = clientCommand.map((part) => `'${part.replaceAll("'", "'\\''")}'`).join(' ');
  const hooks: Record<string, unknown> = {};
  for (const event of CLAUDE_HOOK_EVENTS) {
    const timeout = event === 'PermissionRequest' ? permissionTimeoutSeconds : 30;
    hooks[event] = [{ matcher: '*', hooks: [{ type: 'command', command: `${quoted} ${event}`, timeout }] }];
  }
  return { hooks };
}

export function writeClaudeHookSettings(
  file: string,
  clientCommand: string[],
  permissionTimeoutSeconds: number,
): void {
  writeFileSync(file, JSON.stringify(claudeHookSettings(clientCommand, permissionTimeoutSeconds), null, 2), {
    mode: 0o600,
  });
}

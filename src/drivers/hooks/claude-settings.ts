import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { packageFile } from '../../package-files.js';

/** What Claude runs for each hook: bin/hook-client.mjs, with this Node. */
export const HOOK_CLIENT_COMMAND = [process.execPath, packageFile('bin', 'hook-client.mjs')];

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

/** Not a hook: the statusLine command, which Claude runs with its model, context and rate limits on stdin. */
export const CLAUDE_STATUS_LINE_EVENT = 'StatusLine';

/**
 * A settings file for `claude --settings <file>` (changes nothing in the user's own settings) whose hooks
 * run the hook client. PermissionRequest may wait for a person, so its timeout outlasts the prompt's TTL.
 * The status line reports too (the client shows Claude's own "? for shortcuts" hint there).
 */
export function claudeHookSettings(clientCommand: string[], permissionTimeoutSeconds: number): object {
  const quoted = clientCommand.map((part) => `'${part.replaceAll("'", "'\\''")}'`).join(' ');
  const hooks: Record<string, unknown> = {};
  for (const event of CLAUDE_HOOK_EVENTS) {
    const timeout = event === 'PermissionRequest' ? permissionTimeoutSeconds : 30;
    hooks[event] = [{ matcher: '*', hooks: [{ type: 'command', command: `${quoted} ${event}`, timeout }] }];
  }
  const statusLine = { type: 'command', command: `${quoted} ${CLAUDE_STATUS_LINE_EVENT}`, padding: 0 };
  return { hooks, statusLine };
}

/** Writes the settings file into `dir` (created, private) for the hook client; returns the file's path. */
export function writeClaudeHookSettings(
  dir: string,
  permissionTimeoutSeconds: number,
  clientCommand: string[] = HOOK_CLIENT_COMMAND,
): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, 'claude-settings.json');
  const settings = claudeHookSettings(clientCommand, permissionTimeoutSeconds);
  writeFileSync(file, JSON.stringify(settings, null, 2), { mode: 0o600 });
  return file;
}

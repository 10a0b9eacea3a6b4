import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

/** Where agent-bridge keeps its state: `AGENT_BRIDGE_HOME`, else `~/.agent-bridge`. Private to the user. */
export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
  const dir = dataDirPath(env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/** dataDir() without creating it. */
export function dataDirPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.AGENT_BRIDGE_HOME || path.join(homedir(), '.agent-bridge');
}

export function recordingsDir(env: NodeJS.ProcessEnv = process.env): string {
  const dir = path.join(dataDir(env), 'recordings');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/** A folder name for a session's label (a repository, `repo#thread`): letters, digits, `.`, `_`, `-`. */
export function folderName(label: string): string {
  return label.replace(/[^\w.-]+/g, '_').replace(/^\.+/, '_') || 'session';
}

/**
 * Where an agent puts files for the chat (`[ATTACH: name]`): one folder per session label, so it stays the same
 * across restarts. Nothing outside it is ever sent.
 */
export function outputsDir(root: string, label: string): string {
  return path.join(root, 'outputs', folderName(label));
}

/** Where files people send are saved for the agent. */
export function uploadsDir(root: string, label: string): string {
  return path.join(root, 'uploads', folderName(label));
}

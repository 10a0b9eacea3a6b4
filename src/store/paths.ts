import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

/** Where agent-bridge keeps its state: `AGENT_BRIDGE_HOME`, else `~/.agent-bridge`. Private to the user. */
export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
  const dir = env.AGENT_BRIDGE_HOME || path.join(homedir(), '.agent-bridge');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

export function recordingsDir(env: NodeJS.ProcessEnv = process.env): string {
  const dir = path.join(dataDir(env), 'recordings');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

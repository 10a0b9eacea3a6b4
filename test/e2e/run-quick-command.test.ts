// A command that is over at once (`true`, `echo`, a failing check): its session host may see the agent end
// before `run` has attached to it. `run` must still get every byte, the exit code and the recording.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { endSessionHosts } from '../support/session-hosts.js';

const CLI = fileURLToPath(new URL('../../bin/agent-bridge.js', import.meta.url));
const ROUNDS = 5;

let dir: string;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ab-quick-'));
  env = { PATH: process.env.PATH, HOME: dir, AGENT_BRIDGE_HOME: path.join(dir, 'data') };
});
afterEach(async () => {
  await endSessionHosts(path.join(dir, 'data'));
  rmSync(dir, { recursive: true, force: true });
});

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: dir, env, stdio: 'pipe' });
    child.stdin.end();
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('a command that ends at once', () => {
  it('runs to its end every time: its output, its exit code, its recording', async () => {
    for (let round = 1; round <= ROUNDS; round++) {
      const quiet = await cli(['run', '-q', '--no-record', 'custom', '--', 'true']);
      expect(quiet, quiet.stderr).toMatchObject({ code: 0, stderr: '' });
      const said = await cli(['run', '-q', 'custom', '--', 'sh', '-c', `echo "round ${round} said"; exit 7`]);
      expect(said.stderr).toBe('');
      expect(said.code).toBe(7);
      expect(said.stdout).toContain(`round ${round} said`);
    }
    const recordings = JSON.parse((await cli(['recordings', '--json'])).stdout) as Array<{ file: string }>;
    expect(recordings).toHaveLength(ROUNDS);
    const said = recordings.map((r) => readFileSync(r.file, 'utf8'));
    for (let round = 1; round <= ROUNDS; round++)
      expect(said.filter((cast) => cast.includes(`round ${round} said`))).toHaveLength(1);
  });
});

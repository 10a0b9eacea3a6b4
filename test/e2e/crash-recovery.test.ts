import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli, cliJson, CliUnderPty } from '../support/cli-under-pty.js';
import { processExists, waitFor } from '../support/wait.js';

let dir: string;
let env: Record<string, string>;
const started: CliUnderPty[] = [];

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ab-crash-'));
  env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    AGENT_BRIDGE_HOME: path.join(dir, 'data'),
    TERM: 'xterm-256color',
  };
});
afterEach(async () => {
  await Promise.all(started.splice(0).map((c) => c.stop()));
  rmSync(dir, { recursive: true, force: true });
});

function runAsking(question: string): CliUnderPty {
  const script = `read -p "${question} (y/n) " a; echo "got $a"; sleep 30`;
  const run = new CliUnderPty(['run', 'custom', '--', 'bash', '--norc', '-c', script], {
    cwd: dir,
    env,
    cols: 100,
    rows: 30,
  });
  started.push(run);
  return run;
}

interface Pending {
  id: string;
  status: string;
  excerpt: string;
  session: string;
}

describe('agent-bridge killed while a prompt waits', () => {
  it('closes the prompt of an agent-bridge killed with -9 (session crashed) once noticed; nothing is answered twice', async () => {
    const first = runAsking('Deploy to production?');
    const prompt = await waitFor(
      'the prompt in the store',
      // A prompt is stored as created, then shown (awaiting_reply): wait for the shown state.
      async () => (await cliJson<Pending[]>(['approvals'], env)).find((p) => p.status === 'awaiting_reply'),
    );
    expect(prompt).toMatchObject({
      status: 'awaiting_reply',
      excerpt: expect.stringContaining('Deploy to production?'),
    });
    process.kill(first.process.pid, 'SIGKILL');
    await first.waitForExit();
    expect(processExists(first.process.pid)).toBe(false);

    const second = runAsking('Run migrations?');
    await second.waitForText('Run migrations?');
    // The new run noticed the dead one: its session crashed, its prompt failed; only the new prompt waits.
    const pending = await waitFor('the new prompt listed', async () => {
      const list = await cliJson<Pending[]>(['approvals'], env);
      return list.length === 1 && list[0]!.id !== prompt.id ? list : null;
    });
    const sessions = await cliJson<Array<{ id: string; status: string }>>(['status', '--all'], env);
    expect(sessions.find((s) => s.id === prompt.session)?.status).toBe('crashed');

    const refused = await cli(['approvals', 'answer', prompt.id, 'y'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/already failed|crashed/);
    const fresh = pending[0]!;
    expect((await cli(['approvals', 'answer', fresh.id, 'y'], env)).code).toBe(0);
    await second.waitForText('got y');
    expect((await cli(['approvals', 'answer', fresh.id, 'n'], env)).code).toBe(1);
    expect((await cli(['audit', 'verify'], env)).code).toBe(0);
  });
});

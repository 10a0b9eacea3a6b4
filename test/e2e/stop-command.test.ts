import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auditEntries, cli, cliEnv, cliJson, CliUnderPty } from '../support/cli-under-pty.js';
import { endSessionHosts } from '../support/session-hosts.js';
import { processExists, waitFor } from '../support/wait.js';

// `agent-bridge stop`: the command-line Stop, for sessions that run in a session host here.

let dir: string;
let env: Record<string, string>;
const started: CliUnderPty[] = [];

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ab-stop-'));
  env = cliEnv(dir);
});
afterEach(async () => {
  await Promise.all(started.splice(0).map((c) => c.stop()));
  await endSessionHosts(env.AGENT_BRIDGE_HOME!);
  rmSync(dir, { recursive: true, force: true });
});

interface SessionRow {
  id: string;
  pid: number;
  status: string;
}

async function session(id: string): Promise<SessionRow | undefined> {
  return (await cliJson<SessionRow[]>(['status', '--all'], env)).find((s) => s.id === id);
}

describe('agent-bridge stop', () => {
  it('ends a detached session (quiet, nobody controlling it), records the end and fails its open prompt', async () => {
    // A quiet command: `run --detach` returns without waiting for output that never comes.
    const quiet = await cli(['run', '--detach', '-C', dir, 'custom', '--', 'sleep', '1000'], env);
    expect(quiet.code).toBe(0);
    const asking = await cli(
      [
        'run',
        '--detach',
        '-C',
        dir,
        'custom',
        '--',
        'bash',
        '--norc',
        '-c',
        'read -p "Ship it? (y/n) " a; sleep 1000',
      ],
      env,
    );
    expect(asking.code).toBe(0);
    const quietId = quiet.stdout.trim();
    const askingId = asking.stdout.trim();
    const prompt = await waitFor('the prompt', async () =>
      (await cliJson<Array<{ id: string; session: string }>>(['approvals'], env)).find(
        (p) => p.session === askingId,
      ),
    );
    const agents = [(await session(quietId))!.pid, (await session(askingId))!.pid];
    expect(agents.every(processExists)).toBe(true);

    const stopped = await cli(['stop', quietId.slice(0, 6), askingId.slice(0, 8), quietId], env);
    expect(stopped).toMatchObject({ code: 0, stderr: '' });
    expect(stopped.stdout).toBe(
      `stopped ${quietId.slice(0, 8)} (custom in ${dir}) (signal SIGHUP)\n` +
        `stopped ${askingId.slice(0, 8)} (custom in ${dir}) (signal SIGHUP)\n`,
    );
    expect(agents.some(processExists)).toBe(false);
    expect((await session(quietId))?.status).toBe('terminated');
    expect((await session(askingId))?.status).toBe('terminated');
    expect(await cliJson<unknown[]>(['approvals'], env)).toEqual([]);
    const events = await auditEntries(env);
    const ends = events.filter((e) => e.event === 'SESSION_END');
    expect(ends.map((e) => [e['session_id'], e['status']])).toEqual([
      [quietId, 'terminated'],
      [askingId, 'terminated'],
    ]);
    expect(events.some((e) => e.event === 'PROMPT_FAILED' && e.prompt_id === prompt.id)).toBe(true);
    expect((await cli(['audit', 'verify'], env)).code).toBe(0);

    // Stopped already: nothing runs under that id any more.
    const again = await cli(['stop', quietId], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(
      `agent-bridge: no running session ${quietId} here (agent-bridge status lists them)\n`,
    );
  });

  it('stops a session another agent-bridge controls: its run ends, and records the end itself', async () => {
    const run = new CliUnderPty(['run', 'custom', '--', 'bash', '--norc', '-c', 'echo up; sleep 1000'], {
      cwd: dir,
      env,
      cols: 100,
      rows: 30,
    });
    started.push(run);
    await run.waitForText('up');
    const [row] = await cliJson<SessionRow[]>(['status'], env);
    const stopped = await cliJson<Array<{ id: string; alreadyEnded: boolean; signal: string | null }>>(
      ['stop', row!.id.slice(0, 8)],
      env,
    );
    expect(stopped).toEqual([
      expect.objectContaining({ id: row!.id, alreadyEnded: false, signal: 'SIGHUP' }),
    ]);
    await run.waitForExit();
    await waitFor('the end recorded by run', async () => (await session(row!.id))?.status === 'terminated');
    expect(processExists(row!.pid)).toBe(false);
  });

  it('refuses what it cannot stop with one line saying what to do', async () => {
    const missing = await cli(['stop'], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/missing required argument 'session'/);
    const unknown = await cli(['stop', 'f00d'], env);
    expect(unknown).toMatchObject({
      code: 1,
      stderr: 'agent-bridge: no running session f00d here (agent-bridge status lists them)\n',
    });
    // One bad reference among good ones: nothing is stopped.
    const good = (
      await cli(['run', '--detach', '-C', dir, 'custom', '--', 'sleep', '1000'], env)
    ).stdout.trim();
    expect((await cli(['stop', good, 'f00d'], env)).code).toBe(1);
    expect((await session(good))?.status).toBe('active');
  });
});

import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { auditEntries, cli, cliJson } from '../support/cli-under-pty.js';
import { ScriptWorld } from '../support/script-session.js';
import { sessionHosts } from '../support/session-hosts.js';
import { processExists, waitFor } from '../support/wait.js';

// Issue 12, item 9: an answer to a session whose agent-bridge is gone is refused as such, never "answered".
// Liveness is the process's pid AND start time: a reused pid or a zombie does not pass for the owner. Since
// issue 18 the process that holds a terminal session is its session host (its `run` may die, the session goes
// on): the host is the one whose death is checked here.

let world: ScriptWorld;
const spawned: ChildProcess[] = [];
afterEach(async () => {
  for (const child of spawned.splice(0)) child.kill('SIGKILL');
  await world?.close();
});

/** A prompt of a `run` killed with -9: its session goes on in its host, whose pid is returned too. */
async function promptOfKilledRun(): Promise<{ id: string; session: string; host: number }> {
  const run = world.run('read -p "Deploy? (y/n) " a; echo "got [$a]"; sleep 30');
  const prompt = await world.nextPrompt();
  process.kill(run.process.pid, 'SIGKILL');
  await run.waitForExit();
  expect(processExists(run.process.pid)).toBe(false);
  const [host] = sessionHosts(world.env.AGENT_BRIDGE_HOME!);
  expect(processExists(host!.pid)).toBe(true);
  return { ...prompt, host: host!.pid };
}

/** The session host is killed too: now the session is gone. */
async function promptOfKilledSession(): Promise<{ id: string; session: string }> {
  const prompt = await promptOfKilledRun();
  process.kill(prompt.host, 'SIGKILL');
  await waitFor('the host gone', () => !processExists(prompt.host));
  return prompt;
}

/** The store says the session's host is another process (the real one is ended by the test's cleanup). */
function setHost(pid: number): void {
  const db = new Database(path.join(world.env.AGENT_BRIDGE_HOME!, 'agent-bridge.db'));
  db.prepare('UPDATE sessions SET host_pid = ?').run(pid);
  db.close();
}

async function refusedAsCrashed(prompt: { id: string; session: string }): Promise<void> {
  const answer = await cli(['approvals', 'answer', prompt.id, 'y'], world.env);
  expect(answer.code).toBe(1);
  expect(answer.stdout).not.toMatch(/answered/);
  expect(answer.stderr).toMatch(/crashed: its session host \(pid \d+\) is gone; nothing was typed/);
  const sessions = await cliJson<Array<{ id: string; status: string }>>(['status', '--all'], world.env);
  expect(sessions.find((s) => s.id === prompt.session)?.status).toBe('crashed');
  expect(await cliJson<unknown[]>(['approvals'], world.env)).toEqual([]);
}

describe('answers to a session whose agent-bridge is gone', () => {
  it('are refused as such; its prompts fail and SESSION_END is audited once, whoever notices', async () => {
    world = new ScriptWorld();
    const prompt = await promptOfKilledSession();
    await refusedAsCrashed(prompt);
    // Others noticing later change nothing more.
    await cli(['approvals', 'answer', prompt.id, 'n'], world.env);
    await cli(['status'], world.env);
    const log = await auditEntries(world.env);
    expect(log.filter((e) => e.event === 'SESSION_END' && e.session_id === prompt.session)).toEqual([
      expect.objectContaining({ status: 'crashed', reason: expect.stringMatching(/session crashed/) }),
    ]);
    expect(log.filter((e) => e.event === 'PROMPT_FAILED' && e.prompt_id === prompt.id)).toHaveLength(1);
    expect(log.some((e) => e.event === 'REPLY_RECEIVED')).toBe(false);
    expect((await cli(['audit', 'verify'], world.env)).code).toBe(0);
  });

  it('are refused when the pid now belongs to another process (reuse)', async () => {
    world = new ScriptWorld();
    const prompt = await promptOfKilledRun();
    const other = spawn('sleep', ['60']);
    spawned.push(other);
    setHost(other.pid!);
    await refusedAsCrashed(prompt);
    process.kill(prompt.host, 'SIGKILL');
  });

  it.skipIf(process.platform !== 'linux')('are refused when the owner is a zombie', async () => {
    world = new ScriptWorld();
    const prompt = await promptOfKilledRun();
    // The child ends once the shell that started it has exec'd into a sleep, which never reaps it (ending
    // sooner, the shell itself could reap it first: no zombie on a busy machine).
    const child = `while read -r c < /proc/$PPID/comm && [ "$c" != sleep ]; do :; done`;
    const parent = spawn('bash', ['-c', `sh -c '${child}' & echo $!; exec sleep 60`]);
    spawned.push(parent);
    const zombie = await new Promise<number>((resolve) =>
      parent.stdout!.once('data', (d) => resolve(Number(String(d).trim()))),
    );
    await waitFor('a zombie', () => {
      try {
        return readFileSync(`/proc/${zombie}/stat`, 'utf8').split(') ')[1]?.startsWith('Z');
      } catch {
        return false;
      }
    });
    setHost(zombie);
    await refusedAsCrashed(prompt);
    process.kill(prompt.host, 'SIGKILL');
  });
});

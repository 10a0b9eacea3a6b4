import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auditEntries, cli, cliEnv, cliJson, CliUnderPty } from '../support/cli-under-pty.js';
import { endSessionHosts, sessionHosts } from '../support/session-hosts.js';
import { processExists, waitFor } from '../support/wait.js';

// Issue 18: `agent-bridge run` killed with -9 while a prompt waits no longer takes the agent with it: the
// session goes on in its session host, the prompt stays, and whoever attaches answers it (once). Only when the
// host itself dies is the session crashed.

let dir: string;
let env: Record<string, string>;
const started: CliUnderPty[] = [];

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ab-crash-'));
  env = cliEnv(dir);
});
afterEach(async () => {
  await Promise.all(started.splice(0).map((c) => c.stop()));
  await endSessionHosts(env.AGENT_BRIDGE_HOME!);
  rmSync(dir, { recursive: true, force: true });
});

function startCli(args: string[]): CliUnderPty {
  const proc = new CliUnderPty(args, { cwd: dir, env, cols: 100, rows: 30 });
  started.push(proc);
  return proc;
}

function runAsking(question: string): CliUnderPty {
  const script = `read -p "${question} (y/n) " a; echo "got $a"; sleep 30`;
  return startCli(['run', 'custom', '--', 'bash', '--norc', '-c', script]);
}

interface Pending {
  id: string;
  status: string;
  excerpt: string;
  session: string;
}

/** The prompt once shown (a prompt is stored as created, then shown: awaiting_reply). */
async function thePrompt(excerpt: string): Promise<Pending> {
  return waitFor('the prompt shown', async () =>
    (await cliJson<Pending[]>(['approvals'], env)).find(
      (p) => p.excerpt.includes(excerpt) && p.status === 'awaiting_reply',
    ),
  );
}

describe('agent-bridge run killed while a prompt waits', () => {
  it('leaves the session running in its host: the prompt stays, and is answered once through whoever attaches', async () => {
    const first = runAsking('Deploy to production?');
    const prompt = await thePrompt('Deploy to production?');
    process.kill(first.process.pid, 'SIGKILL');
    await first.waitForExit();

    // The agent lives on: the session is running, its prompt still listed.
    const [host] = sessionHosts(env.AGENT_BRIDGE_HOME!);
    expect(host?.session).toBe(prompt.session);
    expect(processExists(host!.pid)).toBe(true);
    const sessions = await cliJson<Array<{ id: string; status: string; attended: boolean }>>(['status'], env);
    expect(sessions.find((s) => s.id === prompt.session)).toMatchObject({
      status: 'active',
      attended: false,
    });
    // Running, with nobody controlling it: detached.
    const table = (await cli(['status'], env)).stdout.split('\n')[1]!.split('\t');
    expect(table.slice(0, 4)).toEqual([prompt.session.slice(0, 8), 'custom', 'detached', '1 prompt']);
    expect((await thePrompt('Deploy to production?')).id).toBe(prompt.id);
    // Nothing controls it now: the list says so, with no time left counting down where nobody applies it.
    const listed = await cli(['approvals'], env);
    const [, agent, kind, expires, question] = listed.stdout.split('\n')[1]!.split('\t');
    expect([agent, kind, question]).toEqual(['custom (detached)', 'yes_no', 'Deploy to production? (y/n)']);
    expect(expires).toMatch(/^\dm\d\ds$/);
    expect(listed.stderr).toBe(
      `agent-bridge: detached: no agent-bridge controls session ${prompt.session.slice(0, 8)}: an answer here takes it over to type it, and a prompt past its time gets its default then (agent-bridge attach ${prompt.session.slice(0, 8)}, or agent-bridge serve, keeps it watched)\n`,
    );
    const attendedNow = async () =>
      (await cliJson<Array<{ id: string; attended: boolean }>>(['approvals'], env)).find(
        (p) => p.id === prompt.id,
      )?.attended;
    expect(await attendedNow()).toBe(false);

    // Attached from another terminal: the question is on its screen, and it takes the session over.
    const attached = startCli(['attach', prompt.session.slice(0, 6)]);
    await attached.waitForText('Deploy to production? (y/n)');
    await waitFor('the prompt attended', async () => (await attendedNow()) === true);
    await waitFor('attach to take the session over', async () => {
      const answer = await cli(['approvals', 'answer', prompt.id, 'y'], env);
      return answer.code === 0 ? answer : null;
    });
    await attached.waitForText('got y');
    const again = await cli(['approvals', 'answer', prompt.id, 'n'], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already/);
    expect((await cli(['audit', 'verify'], env)).code).toBe(0);
  });

  it('with nobody attached, approvals answer takes the session over, types the answer once and lets it go', async () => {
    // The shell works a moment on the answer before it asks again (as any program on a loaded machine does):
    // the command that typed the answer sees the next question raised before it lets the session go.
    const script =
      'read -p "Ship it? (y/n) " a; sleep 0.5; echo "got $a"; read -p "And tag it? (y/n) " b; echo "tag $b"; sleep 30';
    const started = await cli(['run', '--detach', 'custom', '--', 'bash', '--norc', '-c', script], env);
    expect(started.code).toBe(0);
    const ship = await thePrompt('Ship it?');
    const answered = await cli(['approvals', 'answer', ship.id.slice(0, 6), 'y'], env);
    expect(answered).toMatchObject({ code: 0, stderr: '' });
    expect(answered.stdout).toBe(
      `answered ${ship.id.slice(0, 8)}: yes (typed from here: no agent-bridge was watching the session)\n`,
    );
    // Typed once, by this command, which then let the session go: the next question waits, unattended.
    const tag = await thePrompt('And tag it?');
    const [row] = (await cliJson<Array<{ id: string; attended: boolean }>>(['approvals'], env)).filter(
      (p) => p.id === tag.id,
    );
    expect(row?.attended).toBe(false);
    const events = await auditEntries(env);
    expect(events.filter((e) => e.event === 'REPLY_INJECTED').map((e) => e.prompt_id)).toEqual([ship.id]);
    expect(events.filter((e) => e.event === 'SESSION_DETACHED').map((e) => e.reason)).toEqual([
      'run --detach',
      'approvals answer',
    ]);
    const again = await cli(['approvals', 'answer', ship.id, 'n'], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already/);
    // The shell got exactly one answer, and the second one now, the same way, with --json.
    const second = await cliJson<{ ok: boolean; typedHere: boolean }>(
      ['approvals', 'answer', tag.id, 'n'],
      env,
    );
    expect(second).toMatchObject({ ok: true, typedHere: true });
    const attached = startCli(['attach', ship.session.slice(0, 8)]);
    await attached.waitForText('tag n');
    expect((await attached.screen()).match(/got y/g)).toHaveLength(1);
    expect((await cli(['audit', 'verify'], env)).code).toBe(0);
  });

  it('a detached prompt past its time gets its default when an answer takes the session over, typed before it lets go', async () => {
    const dropped = path.join(dir, 'dropped.txt');
    const script = `read -p "Drop the table? (y/n) " a; echo "dropped [$a]" > '${dropped}'; sleep 30`;
    const ttl = ['--prompt-ttl', 'yes_no=1'];
    expect(
      (await cli(['run', '--detach', ...ttl, 'custom', '--', 'bash', '--norc', '-c', script], env)).code,
    ).toBe(0);
    const drop = await thePrompt('Drop the table?');
    await waitFor('its time to pass', async () => (await cli(['approvals'], env)).stdout.includes('\tnow\t'));
    const late = await cli(['approvals', 'answer', drop.id, 'y'], env);
    expect(late).toMatchObject({ code: 1, stderr: 'agent-bridge: already expired by auto:timeout\n' });
    // The default went out before this command let the session go (not cut off with the store closed).
    await waitFor('the default read', () => existsSync(dropped) && readFileSync(dropped, 'utf8'));
    expect(readFileSync(dropped, 'utf8')).toBe('dropped [n]\n');
    const events = (await auditEntries(env)).map((e) => e.event);
    expect(events.slice(events.indexOf('SESSION_TAKEN_OVER'))).toEqual([
      'SESSION_TAKEN_OVER',
      'PROMPT_EXPIRED',
      'REPLY_REJECTED',
      'REPLY_INJECTED',
      'SESSION_DETACHED',
    ]);
  });

  it('is crashed once its session host is killed with -9: the prompt fails, an answer is refused', async () => {
    runAsking('Run migrations?');
    const prompt = await thePrompt('Run migrations?');
    const [host] = sessionHosts(env.AGENT_BRIDGE_HOME!);
    process.kill(host!.pid, 'SIGKILL');
    await waitFor('the host gone', () => !processExists(host!.pid));
    const refused = await waitFor('the session reaped', async () => {
      const answer = await cli(['approvals', 'answer', prompt.id, 'y'], env);
      return /crashed/.test(answer.stderr) ? answer : null;
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`its session host (pid ${host!.pid}) is gone`);
    const sessions = await cliJson<Array<{ id: string; status: string }>>(['status', '--all'], env);
    expect(sessions.find((s) => s.id === prompt.session)?.status).toBe('crashed');
    expect((await cli(['audit', 'verify'], env)).code).toBe(0);
  });
});

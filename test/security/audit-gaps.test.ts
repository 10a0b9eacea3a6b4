import { appendFileSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { auditEntries, cli } from '../support/cli-under-pty.js';
import { bearer, postHook } from '../support/hook-host.js';
import { ScriptWorld } from '../support/script-session.js';
import { waitFor } from '../support/wait.js';

// Issue 12, item 13: cutting the tail of audit.log or deleting it was reported intact; a partial last line
// (a crash mid-write) made `run` and `approvals answer` fail with a raw JSON error; malformed and oversized
// hook posts were not audited, because the body was parsed before the secret was checked.

let world: ScriptWorld | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

/** A home whose audit log holds a session's worth of entries (a prompt asked and answered). */
async function worldWithHistory(): Promise<{ world: ScriptWorld; log: string }> {
  const created = new ScriptWorld();
  world = created;
  const run = created.run('read -r -p "Ready? (y/n) " a; echo "got $a"');
  const prompt = await created.nextPrompt();
  expect((await cli(['approvals', 'answer', prompt.id, 'y'], created.env)).code).toBe(0);
  await run.waitForExit();
  const log = path.join(created.env.AGENT_BRIDGE_HOME!, 'audit.log');
  expect(readFileSync(log, 'utf8').trim().split('\n').length).toBeGreaterThan(4);
  return { world: created, log };
}

function lines(file: string): string[] {
  return readFileSync(file, 'utf8').trimEnd().split('\n');
}

describe('audit verify', () => {
  it('reports a log whose tail was cut off', async () => {
    const { world, log } = await worldWithHistory();
    expect((await cli(['audit', 'verify'], world.env)).code).toBe(0);
    const kept = lines(log).slice(0, -2);
    writeFileSync(log, kept.join('\n') + '\n');
    const verify = await cli(['audit', 'verify'], world.env);
    expect(verify.code).toBe(1);
    expect(verify.stderr).toMatch(/cut from its end/);
    expect(verify.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('reports a deleted log, and a log restarted after it was deleted', async () => {
    const { world, log } = await worldWithHistory();
    rmSync(log);
    const missing = await cli(['audit', 'verify', '--json'], world.env);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout)).toMatchObject({ ok: false, reason: expect.stringMatching(/missing/) });
    const logs = await cli(['logs'], world.env);
    expect([logs.code, logs.stderr]).toEqual([1, expect.stringMatching(/audit log is missing .* deleted/)]);

    // The next writer continues the chain (and says there is a gap), never a fresh "intact" chain.
    const again = world.run('echo hello');
    await again.waitForExit();
    expect(lines(log)[0]).toMatch(/"event":"AUDIT_GAP"/);
    const verify = await cli(['audit', 'verify'], world.env);
    expect(verify.code).toBe(1);
    expect(verify.stderr).toMatch(/missing/);
  });
});

describe('a partial last line in the audit log', () => {
  it('is set aside and audited; run and approvals answer go on', async () => {
    const { world, log } = await worldWithHistory();
    const before = lines(log).length;
    const partial = '{"seq":' + String(before + 1) + ',"ts":"2026-01-01T00:0';
    appendFileSync(log, partial); // a crash mid-write

    const run = world.run('read -r -p "Again? (y/n) " a; echo "got $a"');
    const prompt = await world.nextPrompt();
    const answered = await cli(['approvals', 'answer', prompt.id, 'y'], world.env);
    expect(answered.stderr).toBe('');
    expect(answered.code).toBe(0);
    await run.waitForText('got y');
    await run.waitForExit();

    const entries = await auditEntries(world.env);
    const setAside = entries.find((e) => e.event === 'AUDIT_LINE_SET_ASIDE');
    expect(setAside).toMatchObject({ seq: before + 1, bytes: Buffer.byteLength(partial) });
    expect(readFileSync(String(setAside!.moved_to), 'utf8')).toBe(partial);
    expect(readdirSync(path.dirname(log)).filter((f) => f.startsWith('audit.log.partial-'))).toHaveLength(1);
    expect((await cli(['audit', 'verify'], world.env)).code).toBe(0);
  });

  it('cannot hide a cut tail: an entry cut mid-line is set aside, and verify still finds it missing', async () => {
    const { world, log } = await worldWithHistory();
    const all = lines(log);
    truncateSync(log, Buffer.byteLength(all.slice(0, -1).join('\n') + '\n') + 10);
    const again = world.run('echo hello');
    await again.waitForExit();
    const events = (await auditEntries(world.env)).map((e) => e.event);
    expect(events).toContain('AUDIT_LINE_SET_ASIDE');
    expect(events).toContain('AUDIT_GAP');
    const verify = await cli(['audit', 'verify'], world.env);
    expect(verify.code).toBe(1);
    expect(verify.stderr).toMatch(new RegExp(`entry ${all.length} is missing`));
  });
});

describe('hook posts without the session token', () => {
  it("are refused by the session's host and audited whatever their body: malformed, oversized, not JSON", async () => {
    const created = new ScriptWorld();
    world = created;
    created.run('read -r -p "Ready? (y/n) " a; echo "got $a"');
    await created.nextPrompt();
    const terminals = path.join(created.env.AGENT_BRIDGE_HOME!, 'terminals');
    const socket = path.join(
      terminals,
      readdirSync(terminals).find((name) => name.endsWith('.sock'))!,
    );
    const post = (body: string, type = 'application/json', token = '0'.repeat(64)) =>
      postHook(socket, 'PermissionRequest', { ...bearer(token), 'content-type': type }, body).then(
        (answer) => answer.status,
      );
    const statuses = [
      await post('{"tool_name": "Bash", "tool_input": {'),
      await post('tool_name=Bash', 'application/x-www-form-urlencoded'),
      await post('{}', 'application/json', ''),
    ];
    expect(statuses).toEqual([401, 401, 401]);
    // The host answers before it reads a byte of the body and then hangs up on the rest: the 401 may be lost
    // to the reset of a connection the client is still writing 2 MiB into (-1). The audit below is the proof.
    const oversized = await post(JSON.stringify({ tool_name: 'Bash', pad: 'x'.repeat(2 * 1024 * 1024) }));
    expect([401, -1]).toContain(oversized);
    const refusals = await waitFor('every refusal audited', async () => {
      const found = (await auditEntries(created.env)).filter((e) => e.event === 'UNAUTHORIZED');
      return found.length === 4 ? found : undefined;
    });
    expect(refusals[0]).toMatchObject({
      source: 'hook',
      event: 'UNAUTHORIZED',
      reason: 'missing or wrong session token',
    });
  });
});

// `agent-bridge logs`: the audit log's end, and following it as it grows.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/store.js';
import { cli, CliUnderPty } from '../support/cli-under-pty.js';

let dir: string;
let store: Store;
let env: Record<string, string>;
let follower: CliUnderPty | undefined;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ab-logs-'));
  env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, AGENT_BRIDGE_HOME: dir };
  store = openStore({ dir });
});
afterEach(async () => {
  await follower?.stop();
  follower = undefined;
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('agent-bridge logs', () => {
  it('-n shows the last entries of a long log, oldest first', async () => {
    for (let i = 0; i < 3_000; i++) store.audit.record('SESSION_START', { session_id: `session-${i}` });
    const result = await cli(['logs', '-n', '2', '--json'], env);
    expect(result.code).toBe(0);
    const ids = result.stdout
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { session_id: string }).session_id);
    expect(ids).toEqual(['session-2998', 'session-2999']);
  });

  it('--json before anything was logged prints no line (the note goes to stderr)', async () => {
    const fresh = path.join(dir, 'fresh');
    const result = await cli(['logs', '--json'], { ...env, AGENT_BRIDGE_HOME: fresh });
    expect(result).toMatchObject({ code: 0, stdout: '' });
    expect(result.stderr).toBe(`agent-bridge: no audit log yet (${path.join(fresh, 'audit.log')})\n`);
    const human = await cli(['logs'], { ...env, AGENT_BRIDGE_HOME: fresh });
    expect(human.stdout).toBe(`no audit log yet (${path.join(fresh, 'audit.log')})\n`);
  });

  it('--tail prints entries as they are written, each once', async () => {
    store.audit.record('SESSION_START', { session_id: 'before' });
    follower = new CliUnderPty(['logs', '--tail', '-n', '1'], { cwd: dir, env });
    await follower.waitForText('session_id=before');
    for (let i = 0; i < 5; i++) store.audit.record('SESSION_END', { session_id: `after-${i}` });
    await follower.waitForText('session_id=after-4');
    const screen = await follower.screen();
    for (let i = 0; i < 5; i++) expect(screen.split(`session_id=after-${i}`)).toHaveLength(2);
  });
});

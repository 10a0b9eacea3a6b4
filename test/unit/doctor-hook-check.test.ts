import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hookCheck } from '../../src/cli/doctor/system-checks.js';

// doctor's hooks check runs the real hook client against a socket where a session's host would have it.
describe('doctor: the hooks check', () => {
  const made: string[] = [];
  afterEach(() => made.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  function dataFolder(name = 'data'): string {
    const root = mkdtempSync(path.join(tmpdir(), 'ab-doctor-hooks-'));
    made.push(root);
    return path.join(root, name);
  }

  it("passes when the hook client's post reaches a socket in terminals/, and leaves no socket behind", async () => {
    const dir = dataFolder();
    expect(await hookCheck(dir)).toEqual({
      id: 'hooks',
      status: 'ok',
      detail: "Claude Code's hooks reach a session's host on its socket",
    });
    expect(readdirSync(path.join(dir, 'terminals'))).toEqual([]);
  });

  it('fails, saying to remove it, when terminals/ is a link to a folder elsewhere', async () => {
    const dir = dataFolder();
    const elsewhere = dataFolder('elsewhere');
    mkdirSync(elsewhere, { recursive: true });
    mkdirSync(dir);
    symlinkSync(elsewhere, path.join(dir, 'terminals'));
    const result = await hookCheck(dir);
    expect(result).toMatchObject({
      id: 'hooks',
      status: 'fail',
      detail: `${path.join(dir, 'terminals')} is not a folder: remove it and run again`,
      fix: `remove ${path.join(dir, 'terminals')} and run again`,
    });
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('fails with its fix when the data folder is too deep for a unix socket', async () => {
    const dir = dataFolder('d'.repeat(90));
    const result = await hookCheck(dir);
    expect(result).toMatchObject({ id: 'hooks', status: 'fail', fix: 'use a shorter AGENT_BRIDGE_HOME' });
    expect(result.detail).toMatch(/^the data folder's path is too long for a unix socket/);
    expect(existsSync(path.join(dir, 'terminals'))).toBe(true);
  });
});

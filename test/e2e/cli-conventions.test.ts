// The CLI's conventions, checked on every command the program has (so a new command is checked too).
import type { Command } from 'commander';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/main.js';
import { cli } from '../support/cli-under-pty.js';

const dir = mkdtempSync(path.join(tmpdir(), 'ab-conventions-'));
const env = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: dir,
  AGENT_BRIDGE_HOME: path.join(dir, 'data'),
};
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function commandPaths(command: Command, prefix: string[] = []): string[][] {
  return command.commands.flatMap((sub) => [
    [...prefix, sub.name()],
    ...commandPaths(sub, [...prefix, sub.name()]),
  ]);
}

const version = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

describe('every command', () => {
  const paths = commandPaths(buildProgram());

  it('is more than a handful (the walk found the tree)', () => {
    expect(paths.map((p) => p.join(' '))).toEqual(
      expect.arrayContaining([
        'run',
        'serve',
        'approvals answer',
        'setup telegram',
        'doctor',
        'debug bundle',
      ]),
    );
  });

  it.each(paths.map((p) => [p.join(' '), p]))('%s --help has examples and exits 0', async (_name, words) => {
    const result = await cli([...(words as string[]), '--help'], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/\nExamples:\n {2}\$ agent-bridge /);
  });
});

describe('the program', () => {
  it('prints its version with -v and --version', async () => {
    for (const flag of ['-v', '--version']) expect((await cli([flag], env)).stdout.trim()).toBe(version);
  });

  it('approvals answer --json answers in JSON wherever --json is typed', async () => {
    for (const args of [
      ['approvals', 'answer', 'abcd', '1', '--json'],
      ['approvals', '--json', 'answer', 'abcd', '1'],
    ]) {
      const result = await cli(args, env);
      expect(result.code).toBe(1);
      expect(JSON.parse(result.stdout)).toEqual({ ok: false, code: 'not_found', reason: 'no prompt abcd' });
    }
  });

  it('a command asked for --json that fails says so on stdout in JSON too (exit 1)', async () => {
    const result = await cli(['stop', 'zzzz', '--json'], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^agent-bridge: .*zzzz/);
    expect(JSON.parse(result.stdout)).toEqual({ ok: false, error: expect.stringContaining('zzzz') });
    // Without --json, stdout stays empty.
    expect((await cli(['stop', 'zzzz'], env)).stdout).toBe('');
  });

  it('serve refuses a port that is not one, or TLS files it cannot read, with one line (exit 2)', async () => {
    const port = await cli(['serve', '--no-terminal', '--port', '99999'], env);
    expect(port.code).toBe(2);
    expect(port.stderr).toMatch(
      /^error: option '--port <n>' argument '99999' is invalid\. expected a port number/,
    );
    const tls = await cli(
      ['serve', '--no-terminal', '--port', '0', '--tls-cert', '/no/cert.pem', '--tls-key', '/no/key.pem'],
      env,
    );
    expect(tls).toMatchObject({ code: 2, stderr: 'agent-bridge: --tls-cert /no/cert.pem: no such file\n' });
    const half = await cli(['serve', '--no-terminal', '--port', '0', '--tls-cert', '/no/cert.pem'], env);
    expect(half).toMatchObject({
      code: 2,
      stderr: 'agent-bridge: give both --tls-cert and --tls-key (a certificate and its private key, PEM)\n',
    });
  });
});

// Shell completion made from the command tree, tried in a real bash.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../support/cli-under-pty.js';

let dir: string;
let script: string;
const env = () => ({
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: dir,
  AGENT_BRIDGE_HOME: path.join(dir, 'data'),
});

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'ab-completion-'));
  const result = await cli(['completion', 'bash'], env());
  expect(result.code).toBe(0);
  script = path.join(dir, 'agent-bridge.bash');
  writeFileSync(script, result.stdout);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What bash offers after the words typed so far (the last one is being completed). */
function offered(...words: string[]): string[] {
  const line = ['agent-bridge', ...words];
  const program = `source "$1"; COMP_WORDS=(${line.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${line.length - 1}; _agent_bridge; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const result = spawnSync('bash', ['--norc', '-c', program, 'bash', script], { encoding: 'utf8' });
  expect(result.stderr).toBe('');
  return result.stdout.split('\n').filter(Boolean);
}

describe('agent-bridge completion', () => {
  it('bash: completes commands, subcommands, options and choices', () => {
    expect(offered('')).toEqual(
      expect.arrayContaining(['run', 'serve', 'approvals', 'doctor', 'debug', 'completion']),
    );
    expect(offered('ap')).toEqual(['approvals']);
    expect(offered('approvals', 'an')).toEqual(['answer']);
    expect(offered('debug', '')).toEqual(expect.arrayContaining(['bundle']));
    expect(offered('run', '--no-')).toEqual([
      '--no-auto-trust',
      '--no-record',
      '--no-hooks',
      '--no-web-view',
      '--no-detach',
    ]);
    expect(offered('completion', '')).toEqual(expect.arrayContaining(['bash', 'zsh', 'fish']));
    // Options after other options and values still belong to the command they follow.
    expect(offered('serve', '--port', '7601', '--no-w')).toEqual(['--no-web']);
  });

  it('zsh and fish get scripts of their own; another shell is bad usage (exit 2)', async () => {
    const zsh = await cli(['completion', 'zsh'], env());
    expect(zsh.stdout).toContain('bashcompinit');
    expect(zsh.stdout).toContain('complete -o default -F _agent_bridge agent-bridge');
    const fish = await cli(['completion', 'fish'], env());
    expect(fish.stdout).toMatch(/^complete -c agent-bridge -n '__fish_use_subcommand' -a doctor -d '.+'$/m);
    expect(fish.stdout).toMatch(
      /^complete -c agent-bridge -n '__fish_seen_subcommand_from run' -l skip-permissions/m,
    );
    const other = await cli(['completion', 'tcsh'], env());
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/Allowed choices are bash, zsh, fish/);
  });
});

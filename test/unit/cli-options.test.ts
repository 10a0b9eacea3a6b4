// The command line's checks of what it is given: refused at once with what to do, before anything is started.
import type { Command, Option } from 'commander';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_TTL_SECONDS, promptTtl, terminalSize } from '../../src/cli/command-options.js';
import { versionIn } from '../../src/cli/doctor/setup-checks.js';
import { CliFailure, UsageError } from '../../src/cli/errors.js';
import { buildProgram } from '../../src/cli/main.js';
import { MAX_TERMINAL_SIZE } from '../../src/sessions/host/host-wire.js';
import { parseHello, parseRequest } from '../../src/sessions/host/host-requests.js';

const dir = mkdtempSync(path.join(tmpdir(), 'ab-cli-options-'));
const previousHome = process.env.AGENT_BRIDGE_HOME;
beforeAll(() => {
  process.env.AGENT_BRIDGE_HOME = path.join(dir, 'data');
});
afterAll(() => {
  if (previousHome === undefined) delete process.env.AGENT_BRIDGE_HOME;
  else process.env.AGENT_BRIDGE_HOME = previousHome;
  rmSync(dir, { recursive: true, force: true });
});

/** The parser commander runs on a `run` option's value (the option as the program declares it). */
function runOption(flag: string): (value: string) => unknown {
  const run = buildProgram().commands.find((command: Command) => command.name() === 'run')!;
  const option = run.options.find((o: Option) => o.long === flag)!;
  return (value) => option.parseArg!(value, undefined);
}

describe('run --cols / --rows', () => {
  it('takes a size the session host accepts, and refuses a bigger one before anything starts', () => {
    for (const flag of ['--cols', '--rows']) {
      expect(runOption(flag)(String(MAX_TERMINAL_SIZE))).toBe(MAX_TERMINAL_SIZE);
      expect(runOption(flag)('1')).toBe(1);
      for (const bad of ['20000', String(MAX_TERMINAL_SIZE + 1), '0', '-3', '2.5', 'wide'])
        expect(() => runOption(flag)(bad)).toThrow(`expected a whole number from 1 to ${MAX_TERMINAL_SIZE}`);
    }
    expect(terminalSize('80')).toBe(80);
  });

  it('holds to the bound the host checks its clients by', () => {
    const hello = (cols: number) =>
      JSON.stringify({
        type: 'hello',
        protocol: 2,
        secret: 's',
        client: 'terminal',
        size: { cols, rows: 24 },
      });
    expect(parseHello(hello(MAX_TERMINAL_SIZE))).not.toBeNull();
    expect(parseHello(hello(MAX_TERMINAL_SIZE + 1))).toBeNull();
    const resize = (rows: number) => JSON.stringify({ type: 'resize', cols: 80, rows });
    expect(parseRequest(resize(MAX_TERMINAL_SIZE))).not.toBeNull();
    expect(parseRequest(resize(MAX_TERMINAL_SIZE + 1))).toBeNull();
  });
});

describe('run --prompt-ttl', () => {
  it('takes up to what a timer can wait, and says the most when given more', () => {
    expect(MAX_TTL_SECONDS).toBe(2_147_483);
    expect(promptTtl(`yes_no=${MAX_TTL_SECONDS}`)).toEqual({ yes_no: MAX_TTL_SECONDS * 1000 });
    // 30 days: Node would print a TimeoutOverflowWarning over the agent's screen and fire at once.
    for (const value of ['yes_no=2592000', `permission=${MAX_TTL_SECONDS + 1}`, 'plan=99999999999999999999'])
      expect(() => runOption('--prompt-ttl')(value)).toThrow(
        'expected at most 2147483 seconds (just under 25 days)',
      );
    expect(() => promptTtl('nosuch=5')).toThrow(/expected kind=seconds/);
    // 0 would expire each prompt of the kind at once (its safe default typed with nobody asked).
    expect(() => runOption('--prompt-ttl')('permission=0')).toThrow('expected at least 1 second');
    expect(runOption('--prompt-ttl')('permission=300')).toEqual({ permission: 300_000 });
  });
});

describe('run refuses', () => {
  const options = { autoTrust: true, record: false, hooks: false, cols: 80, rows: 24, webView: true };
  const run = async (agent: string, args: string[], more: Record<string, unknown> = {}) => {
    const { runCommand } = await import('../../src/cli/commands/run.js');
    return runCommand(agent, args, { ...options, ...more });
  };

  it('a command after -- that is not there, naming it (not telling to give one)', async () => {
    await expect(run('custom', ['nosuchcmdxyz'])).rejects.toThrow(
      new UsageError('command "nosuchcmdxyz" is not found on PATH (or is not executable)'),
    );
    await expect(run('acp', ['nosuchacp', 'acp'])).rejects.toThrow(
      new UsageError('ACP agent command "nosuchacp" is not found on PATH (or is not executable)'),
    );
    const notExecutable = path.join(dir, 'not-executable');
    writeFileSync(notExecutable, '#!/bin/sh\n', { mode: 0o644 });
    for (const command of [notExecutable, path.join(dir, 'missing')])
      await expect(run('custom', [command])).rejects.toThrow(
        new UsageError(`command "${command}" does not exist or is not executable`),
      );
  });

  it('a --config that does not exist, whatever else is asked', async () => {
    // The command is not there either: a run that got past the config file would say that instead.
    for (const more of [{}, { approveFrom: ['telegram'] }])
      await expect(
        run('custom', ['nosuchcmdxyz'], { config: path.join(dir, 'nope.yaml'), ...more }),
      ).rejects.toThrow(`${path.join(dir, 'nope.yaml')}: no such config file`);
  });
});

describe('recordings --before', () => {
  it('names a recording that is there, else says there is none and how to list them (exit 1)', async () => {
    const { recordingsCommand } = await import('../../src/cli/commands/recordings.js');
    const recordings = path.join(dir, 'data', 'recordings');
    mkdirSync(recordings, { recursive: true });
    const names = ['2026-01-01T00-00-00-000Z-shell-00000000', '2026-01-02T00-00-00-000Z-shell-00000001'];
    for (const name of names)
      writeFileSync(path.join(recordings, `${name}.cast`), '{"version":2,"width":80,"height":24}\n');
    let printed = '';
    const target = { write: (text: string) => void (printed += text), isTTY: false, env: {} };
    for (const before of ['nosuch', '00000001', '7']) {
      const refused = recordingsCommand({ limit: 50, before }, target);
      await expect(refused).rejects.toThrow(
        new CliFailure(`no recording ${before} (agent-bridge recordings lists them)`),
      );
    }
    expect(printed).toBe('');
    await recordingsCommand({ limit: 50, before: names[1]!, json: true }, target);
    expect((JSON.parse(printed) as Array<{ id: string }>).map((r) => r.id)).toEqual([names[0]]);
  });
});

describe('doctor', () => {
  it("reads an agent's version without the sentence around it", () => {
    expect(versionIn('GitHub Copilot CLI 1.0.102.')).toBe('1.0.102');
    expect(versionIn('2.1.197 (Claude Code)')).toBe('2.1.197');
    expect(versionIn('codex-cli 0.130.0-alpha.3')).toBe('0.130.0-alpha.3');
    expect(versionIn('aider 0.86.1.dev')).toBe('0.86.1.dev');
    expect(versionIn('no version here')).toBeNull();
  });
});

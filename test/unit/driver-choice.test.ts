import { mkdtempSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chooseDriver, DriverUnavailable, speaksProtocol } from '../../src/agents/driver-choice.js';
import { agents, getAgent } from '../../src/agents/registry.js';
import {
  agentDrivers,
  buildStructuredArgs,
  driverProblem,
  UnsupportedLaunchOption,
} from '../../src/agents/types.js';

const speaks = (answer: boolean) => async () => answer;

describe('driver choice', () => {
  it('terminal is the agent’s screen; structured is refused, with what to use, for an agent without a protocol', async () => {
    expect(await chooseDriver(getAgent('gemini'), 'terminal', '/bin/gemini', speaks(true))).toEqual({
      driver: 'terminal',
    });
    await expect(chooseDriver(getAgent('aider'), 'structured', '/bin/aider', speaks(true))).rejects.toThrow(
      /aider has no structured driver .*use driver terminal or auto/,
    );
    await expect(chooseDriver(getAgent('acp'), 'terminal', '/bin/x', speaks(true))).rejects.toThrow(
      /acp speaks only its protocol: use driver structured or auto/,
    );
  });

  it('auto picks the protocol where the installed agent speaks it, else falls back to the screen and says why', async () => {
    expect(await chooseDriver(getAgent('codex'), 'auto', '/bin/codex', speaks(true))).toEqual({
      driver: 'structured',
    });
    const old = await chooseDriver(getAgent('gemini'), 'auto', '/old/gemini', speaks(false));
    expect(old.driver).toBe('terminal');
    expect(old.notice).toMatch(
      /\/old\/gemini does not speak acp .*--acp.*: using its screen \(terminal driver\)/,
    );
    const none = await chooseDriver(getAgent('shell'), 'auto', '/bin/bash', speaks(true));
    expect(none).toMatchObject({ driver: 'terminal', notice: expect.stringMatching(/no protocol/) });
  });

  it('structured refuses an installed version that does not speak it, saying to upgrade or use the terminal', async () => {
    await expect(
      chooseDriver(getAgent('copilot'), 'structured', '/old/copilot', speaks(false)),
    ).rejects.toThrow(DriverUnavailable);
    await expect(
      chooseDriver(getAgent('copilot'), 'structured', '/old/copilot', speaks(false)),
    ).rejects.toThrow(/upgrade Copilot CLI \(npm install -g @github\/copilot\), or use driver terminal/);
  });

  it('driverProblem names unknown drivers; every protocol agent lists structured among its drivers', () => {
    expect(driverProblem(getAgent('claude'), 'pty')).toMatch(
      /unknown driver "pty": choose auto, terminal, structured/,
    );
    expect(driverProblem(getAgent('claude'), 'auto')).toBeNull();
    for (const spec of Object.values(agents))
      expect(agentDrivers(spec).includes('structured')).toBe(Boolean(spec.structured));
    expect(agentDrivers(getAgent('acp'))).toEqual(['structured']);
  });
});

describe('speaksProtocol: the installed agent’s own --help', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'ab-probe-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function fakeAgent(name: string, help: string): string {
    const file = path.join(dir, name);
    writeFileSync(file, `#!/bin/sh\ncat <<'HELP'\n${help}\nHELP\n`);
    chmodSync(file, 0o755);
    return file;
  }

  it('finds the flag in a recent help, not in an old one', async () => {
    const gemini = getAgent('gemini');
    expect(
      await speaksProtocol(gemini, fakeAgent('new', 'Options:\n      --acp    Starts the agent in ACP mode')),
    ).toBe(true);
    expect(
      await speaksProtocol(gemini, fakeAgent('old', 'Options:\n      --experimental-acp  Starts ACP')),
    ).toBe(false);
    expect(await speaksProtocol(gemini, path.join(dir, 'missing'))).toBe(false);
  });
});

describe('protocol-mode command lines', () => {
  it('Claude: stream-json with permission questions on stdio, then its usual flags and resume', () => {
    expect(
      buildStructuredArgs(getAgent('claude'), { model: 'sonnet', resume: 'abc', extraArgs: ['--x'] }),
    ).toEqual([
      '-p',
      '--input-format',
      'stream-json',
      '--output-format',
      'stream-json',
      '--verbose',
      '--permission-prompt-tool',
      'stdio',
      '--model',
      'sonnet',
      '--resume',
      'abc',
      '--x',
    ]);
  });

  it('Gemini and Copilot: --acp and their flags; resume goes through the protocol (session/load), by id only', () => {
    expect(buildStructuredArgs(getAgent('gemini'), { skipPermissions: true, resume: 'id' })).toEqual([
      '--acp',
      '--yolo',
    ]);
    expect(() => buildStructuredArgs(getAgent('copilot'), { resume: true })).toThrow(UnsupportedLaunchOption);
  });

  it('Codex: the app-server subcommand first, without the terminal’s --no-daemon; model and policy in the protocol', () => {
    expect(
      buildStructuredArgs(getAgent('codex'), {
        model: 'o3',
        skipPermissions: true,
        extraArgs: ['-c', 'x=1'],
      }),
    ).toEqual(['app-server', '-c', 'x=1']);
    expect(() => buildStructuredArgs(getAgent('aider'), {})).toThrow(/aider has no structured driver/);
  });
});

import { describe, expect, it } from 'vitest';
import {
  agents,
  getAgent,
  resolveLaunch,
  UnknownAgentError,
  MissingCustomCommandError,
} from '../../src/agents/registry.js';
import { AGENT_IDS, buildLaunchArgs, UnsupportedLaunchOption } from '../../src/agents/types.js';
import type { DiscoveryEnv } from '../../src/agents/discovery.js';

describe('agent registry', () => {
  it('has a spec for every agent id, under its own id', () => {
    expect(Object.keys(agents).sort()).toEqual([...AGENT_IDS].sort());
    for (const id of AGENT_IDS) expect(agents[id].id).toBe(id);
  });

  it('rejects an unknown agent with the list of known ones', () => {
    expect(() => getAgent('claud')).toThrow(UnknownAgentError);
    expect(() => getAgent('claud')).toThrow(/choose one of claude, codex, gemini/);
  });

  it.each([
    ['claude', '--dangerously-skip-permissions'],
    ['codex', '--dangerously-bypass-approvals-and-sandbox'],
    ['gemini', '--yolo'],
    ['copilot', '--allow-all-tools'],
    ['cursor-agent', '--force'],
    ['aider', '--yes-always'],
  ])('%s skips permissions with %s', (id, flag) => {
    expect(buildLaunchArgs(getAgent(id), { skipPermissions: true })).toContain(flag);
    expect(buildLaunchArgs(getAgent(id), {})).not.toContain(flag);
  });

  it('builds resume and continue arguments per agent', () => {
    expect(buildLaunchArgs(getAgent('claude'), { resume: 'abc' })).toEqual(['--resume', 'abc']);
    expect(buildLaunchArgs(getAgent('claude'), { resume: true })).toEqual(['--continue']);
    // Codex resumes with a subcommand, which must come before its flags.
    expect(buildLaunchArgs(getAgent('codex'), { resume: true, skipPermissions: true })).toEqual([
      'resume',
      '--last',
      '--no-daemon',
      '--dangerously-bypass-approvals-and-sandbox',
    ]);
    expect(buildLaunchArgs(getAgent('gemini'), { resume: true })).toEqual(['--resume', 'latest']);
  });

  it('puts the user extra arguments last', () => {
    expect(buildLaunchArgs(getAgent('claude'), { resume: true, extraArgs: ['--model', 'x'] })).toEqual([
      '--continue',
      '--model',
      'x',
    ]);
  });

  it('refuses options an agent does not have', () => {
    expect(() => buildLaunchArgs(getAgent('shell'), { skipPermissions: true })).toThrow(
      UnsupportedLaunchOption,
    );
    expect(() => buildLaunchArgs(getAgent('shell'), { resume: true })).toThrow(/cannot resume/);
  });

  it('declares a folder-trust answer for the agents that ask', () => {
    for (const id of ['claude', 'codex', 'gemini', 'copilot'] as const) {
      expect(agents[id].startupPrompts.length).toBeGreaterThan(0);
    }
    const claudeTrust = agents.claude.startupPrompts[0]!;
    expect(claudeTrust.pattern.test('❯ 1. Yes, I trust this folder\n  2. No, exit')).toBe(true);
    const geminiTrust = agents.gemini.startupPrompts[0]!;
    expect(
      geminiTrust.pattern.test('│ Do you trust the files in this folder? │\n│ ● 1. Trust folder (proj) │'),
    ).toBe(true);
    const copilotTrust = agents.copilot.startupPrompts[0]!;
    expect(
      copilotTrust.pattern.test('Do you trust the files in this folder?\n\n❯ 1. Yes\n  2. Yes, and remember'),
    ).toBe(true);
  });
});

describe('custom command', () => {
  const denv: DiscoveryEnv = {
    platform: 'linux',
    home: '/nonexistent',
    pathVariable: '/usr/bin:/bin',
    env: {},
    projectBin: null,
  };

  it('takes its program from the first extra argument', async () => {
    const launch = await resolveLaunch(getAgent('custom'), { extraArgs: ['sh', '-c', 'echo hi'] }, denv);
    expect(launch.discovered.found).toBe(true);
    expect(launch.command).toMatch(/\/sh$/);
    expect(launch.args).toEqual(['-c', 'echo hi']);
  });

  it('needs a command', async () => {
    await expect(resolveLaunch(getAgent('custom'), {}, denv)).rejects.toThrow(MissingCustomCommandError);
  });

  it('reports a missing program as not found', async () => {
    const launch = await resolveLaunch(getAgent('custom'), { extraArgs: ['/no/such/program'] }, denv);
    expect(launch.discovered.found).toBe(false);
    expect(launch.command).toBe('/no/such/program');
  });
});

import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { candidateLocations, discoverCommand, type DiscoveryEnv } from '../../src/agents/discovery.js';
import type { CommandSearch } from '../../src/agents/types.js';

let root: string;
const search: CommandSearch = {
  homePaths: ['{HOME}/.tool/local/tool'],
  names: ['tool', 'tool-alt'],
  overrideEnv: 'TOOL_PATH',
};

function executable(file: string, mode = 0o755): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, '#!/bin/sh\n');
  chmodSync(file, mode);
  return file;
}

function env(overrides: Partial<DiscoveryEnv> = {}): DiscoveryEnv {
  return {
    platform: 'linux',
    home: path.join(root, 'home'),
    pathVariable: [path.join(root, 'bin1'), path.join(root, 'bin2')].join(':'),
    env: {},
    projectBin: path.join(root, 'project', 'node_modules', '.bin'),
    ...overrides,
  };
}

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'ab-discovery-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('command discovery', () => {
  it('searches home installs, PATH names, user and system bins, then the project bin, in that order', () => {
    const order = candidateLocations(search, env());
    expect(order).toEqual([
      path.join(root, 'home/.tool/local/tool'),
      'tool',
      'tool-alt',
      path.join(root, 'home/.local/bin/tool'),
      '/usr/local/bin/tool',
      '/usr/bin/tool',
      path.join(root, 'project/node_modules/.bin/tool'),
    ]);
  });

  it('prefers the tool-specific home install over PATH', async () => {
    executable(path.join(root, 'bin1/tool'));
    const home = executable(path.join(root, 'home/.tool/local/tool'));
    expect(await discoverCommand(search, env())).toMatchObject({ found: true, command: home });
  });

  it('finds a bare name on PATH, skipping non-executable files', async () => {
    executable(path.join(root, 'bin1/tool'), 0o644);
    const second = executable(path.join(root, 'bin2/tool'));
    expect((await discoverCommand(search, env())).command).toBe(second);
  });

  it('falls back to an alternative name', async () => {
    const alt = executable(path.join(root, 'bin2/tool-alt'));
    expect((await discoverCommand(search, env())).command).toBe(alt);
  });

  it("finds the project's own node_modules/.bin last", async () => {
    const bundled = executable(path.join(root, 'project/node_modules/.bin/tool'));
    expect((await discoverCommand(search, env())).command).toBe(bundled);
  });

  it('uses the override variable when it points at an executable, and keeps searching when not', async () => {
    const chosen = executable(path.join(root, 'elsewhere/my-tool'));
    executable(path.join(root, 'bin1/tool'));
    expect((await discoverCommand(search, env({ env: { TOOL_PATH: chosen } }))).command).toBe(chosen);
    const fallback = await discoverCommand(search, env({ env: { TOOL_PATH: '/no/such/file' } }));
    expect(fallback.command).toBe(path.join(root, 'bin1/tool'));
    expect(fallback.searched[0]).toBe('/no/such/file');
  });

  it('reports not found with every place it looked', async () => {
    const result = await discoverCommand(search, env({ projectBin: null }));
    expect(result.found).toBe(false);
    expect(result.command).toBe('tool');
    expect(result.searched).toContain('tool-alt');
  });

  it('tries .exe and .cmd on Windows', async () => {
    const exe = executable(path.join(root, 'bin1/tool.cmd'));
    const result = await discoverCommand(
      search,
      env({ platform: 'win32', pathVariable: path.join(root, 'bin1') }),
    );
    expect(result.command).toBe(exe);
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startFakeTelegram, type FakeTelegram } from '../fakes/telegram/server.js';
import { ServeProcess } from '../support/serve-process.js';
import { writeTelegramConfig } from '../support/telegram-setup.js';
import { endChild } from '../support/wait.js';

// A chat platform slow to answer at start (its getMe hangs): serve waits for it a while before its banner, and
// a Ctrl-C or SIGTERM in that wait stops it, as at any other time (it used to be heard only once serving).

let dir: string;
let telegram: FakeTelegram;
let serve: ServeProcess | null = null;

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'ab-serve-start-'));
  telegram = await startFakeTelegram();
});

afterEach(async () => {
  await endChild(serve?.child, 'SIGKILL');
  serve = null;
  await telegram.close();
  rmSync(dir, { recursive: true, force: true });
});

it('stops on SIGTERM while a channel is still starting, saying so, before any banner', async () => {
  const dataDir = path.join(dir, 'data');
  const config = writeTelegramConfig(dataDir, telegram);
  telegram.stallNext('getMe', 120_000);
  serve = new ServeProcess(['--config', config, '--no-web'], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, AGENT_BRIDGE_HOME: dataDir },
  });
  await telegram.waitForCall('getMe', () => true, 20_000);
  expect(serve.stderr).not.toMatch(/agent-bridge serve:/);
  const code = await serve.stop();
  expect(code).toBe(0);
  expect(serve.stderr).toMatch(/SIGTERM while starting: stopping/);
});

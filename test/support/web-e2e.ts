import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { launchChromium } from './browser.js';
import { CliUnderPty } from './cli-under-pty.js';
import { ServeProcess } from './serve-process.js';
import { endSessionHosts } from './session-hosts.js';

/**
 * `agent-bridge serve` (the built CLI) in a throwaway home, for browser tests: its printed URL, a project
 * folder, `agent-bridge run` sessions of the same home, and helpers for the pages.
 */
export class WebE2E {
  readonly dir = mkdtempSync(path.join(tmpdir(), 'ab-e2e-'));
  readonly project = path.join(this.dir, 'project');
  readonly env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: this.dir,
    AGENT_BRIDGE_HOME: path.join(this.dir, '.agent-bridge'),
    TERM: 'xterm-256color',
    SHELL: '/bin/bash',
  };
  serve!: ServeProcess;
  url = '';
  private readonly runs: CliUnderPty[] = [];

  async start(extraEnv: Record<string, string> = {}): Promise<this> {
    mkdirSync(this.project);
    Object.assign(this.env, extraEnv);
    this.serve = new ServeProcess([], { cwd: this.project, env: this.env });
    this.url = await this.serve.url();
    return this;
  }

  /** `agent-bridge run <args>` in a terminal of its own, on the same data folder as serve. */
  run(args: string[], size = { cols: 100, rows: 30 }): CliUnderPty {
    const run = new CliUnderPty(['run', '-q', ...args], { cwd: this.project, env: this.env, ...size });
    this.runs.push(run);
    return run;
  }

  async close(): Promise<void> {
    await Promise.all(this.runs.splice(0).map((run) => run.stop()));
    await this.serve?.stop();
    // serve stopping leaves its sessions running in their hosts: end them before their folder goes.
    await endSessionHosts(this.env.AGENT_BRIDGE_HOME!);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * The hooks of a browser test file: one Chromium for the file, a fresh serve (WebE2E) for each test.
 * `const e2e = useWebE2E()`, then `e2e.browser` and `e2e.world` inside the tests.
 */
export function useWebE2E(): { readonly browser: Browser; readonly world: WebE2E } {
  const state = {} as { browser: Browser; world: WebE2E };
  beforeAll(async () => {
    state.browser = await launchChromium();
  });
  afterAll(async () => state.browser?.close());
  beforeEach(async () => {
    state.world = await new WebE2E().start();
  });
  afterEach(async () => state.world?.close());
  return state;
}

/** The text xterm.js draws, row by row. */
export function terminalText(page: Page): Promise<string> {
  return page.locator('[data-testid="terminal"] .xterm-rows').innerText();
}

/** Opens the app (signing in with the printed URL) and starts an agent from its card. */
export async function startFromCard(
  page: Page,
  url: string,
  agent: string,
  folder: string,
  args = '',
): Promise<string> {
  await page.goto(url);
  await page.getByTestId(`folder-${agent}`).fill(folder);
  if (args) await page.getByTestId(`args-${agent}`).fill(args);
  await page.getByTestId(`start-${agent}`).click();
  await page.waitForURL(/#\/session\//, { timeout: 15_000 });
  await page.getByTestId('terminal').locator('.xterm-rows').waitFor();
  await page.getByTestId('link-status').filter({ hasText: 'live' }).waitFor();
  return decodeURIComponent(page.url().split('#/session/')[1]!);
}

/** Types into the live terminal as a person would, then Enter. */
export async function typeLine(page: Page, text: string): Promise<void> {
  await page.locator('[data-testid="terminal"] textarea').focus();
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
}

/**
 * A screenshot for people (README): written to AGENT_BRIDGE_SCREENSHOTS when set (`docs/screenshots`),
 * else nowhere.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env.AGENT_BRIDGE_SCREENSHOTS;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}.png`) });
}

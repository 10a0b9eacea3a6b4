// The real Claude Code CLI through `agent-bridge run claude`, typed into a bash inside tmux (120×40), against
// the fake Anthropic API on 127.0.0.1: folder trust, a chat turn, a tool permission, /exit.
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { STARTUP_ANSWER_DELAY_MS } from '../../src/drivers/terminal/startup-responder.js';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic/server.js';
import { claudeBinary, prepareClaudeHome, type ClaudeHome } from '../support/claude-env.js';
import { assertTmuxInstalled, TmuxSession, type ScreenCondition } from '../support/tmux.js';

const CLI = fileURLToPath(new URL('../../bin/agent-bridge.js', import.meta.url));
/** Claude Code takes a few seconds to start on a busy machine: every wait on it gets this deadline. */
const CLAUDE_WAIT_MS = 20_000;
const TRUST_QUESTION = 'Yes, I trust this folder';
const IDLE = '? for shortcuts';
const OUTER_PROMPT = 'outer>';

assertTmuxInstalled();

interface Harness {
  tmux: TmuxSession;
  cwd: string;
  dataDir: string;
  claudeHome: ClaudeHome;
}

let fake: FakeAnthropic;
let root: string | undefined;
let harness: Harness | undefined;

beforeAll(async () => {
  fake = await startFakeAnthropic();
});

afterAll(async () => {
  await fake.close();
});

afterEach(async () => {
  await harness?.tmux.kill();
  await harness?.claudeHome.cleanup();
  harness = undefined;
  if (root) await rm(root, { recursive: true, force: true, maxRetries: 5 });
  root = undefined;
});

/** A bash (prompt `outer> `) in a 120×40 tmux window, in a fresh folder, with Claude's offline env. */
async function startOuterShell(trust: boolean): Promise<Harness> {
  root = await mkdtemp(join(tmpdir(), 'agent-bridge-e2e-claude-'));
  const cwd = join(root, 'work');
  const dataDir = join(root, 'data');
  await mkdir(cwd);
  const claudeHome = await prepareClaudeHome({ baseUrl: fake.url, cwd, trust });
  const tmux = await TmuxSession.start({
    command: ['bash', '--norc', '--noprofile'],
    env: {
      ...claudeHome.env,
      PS1: `${OUTER_PROMPT} `,
      HISTFILE: '',
      AGENT_BRIDGE_HOME: dataDir,
      // The dev dependency, whatever else is installed on this machine.
      AGENT_BRIDGE_CLAUDE_PATH: claudeBinary(),
    },
    cols: 120,
    rows: 40,
    cwd,
  });
  harness = { tmux, cwd, dataDir, claudeHome };
  await tmux.waitForPrompt(OUTER_PROMPT);
  return harness;
}

function waitForClaude(tmux: TmuxSession, condition: ScreenCondition, description: string) {
  return tmux.waitFor(condition, { timeoutMs: CLAUDE_WAIT_MS, description });
}

/** Types into Claude's input box, waits until the text shows there, then presses Enter on its own. */
async function submit(tmux: TmuxSession, text: string): Promise<void> {
  await tmux.type(text);
  // Claude draws a no-break space after its ❯; \s matches it.
  const inBox = new RegExp(`❯\\s${text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`);
  await waitForClaude(tmux, inBox, `"${text}" in the input box`);
  await tmux.press('Enter');
}

/** Types /exit and waits until the outer shell's prompt is back; returns agent-bridge's exit code. */
async function exitClaude(tmux: TmuxSession): Promise<string> {
  await submit(tmux, '/exit');
  await tmux.waitForPrompt(OUTER_PROMPT, { timeoutMs: CLAUDE_WAIT_MS });
  return tmux.shellValue('$?');
}

/** Whether Claude Code itself recorded the folder as trusted (what answering its question does). */
async function claudeTrusts(claudeHome: ClaudeHome, cwd: string): Promise<boolean> {
  const config = JSON.parse(readFileSync(join(claudeHome.home, '.claude.json'), 'utf8')) as {
    projects?: Record<string, { hasTrustDialogAccepted?: boolean }>;
  };
  return config.projects?.[await realpath(cwd)]?.hasTrustDialogAccepted === true;
}

/**
 * The words the recording of the (only) session printed. Claude positions words with cursor moves rather
 * than spaces, so every control sequence counts as a space.
 */
async function recordedOutput(dataDir: string): Promise<string> {
  const dir = join(dataDir, 'recordings');
  const files = (await readdir(dir)).filter((name) => name.endsWith('.cast'));
  expect(files).toHaveLength(1);
  const lines = (await readFile(join(dir, files[0] as string), 'utf8')).trimEnd().split('\n').slice(1);
  return (
    lines
      .map((line) => JSON.parse(line) as [number, string, string])
      .filter(([, kind]) => kind === 'o')
      .map(([, , data]) => data)
      .join('')
      // eslint-disable-next-line no-control-regex -- terminal escape sequences are what it removes
      .replace(/\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])/g, ' ')
      .replace(/\s+/g, ' ')
  );
}

/**
 * Asserts the condition holds on every capture for `ms`: for what must NOT happen (an answer typed for the
 * user), there is no event to wait for, only a window long enough for it to have happened.
 */
async function holdsFor(tmux: TmuxSession, condition: (screen: string) => boolean, ms: number) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    expect(condition(await tmux.capture()), 'the screen changed').toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('agent-bridge run claude (real Claude Code, fake API, in tmux)', () => {
  it('answers the folder-trust question by itself, and Claude is ready', async () => {
    const { tmux, cwd, dataDir, claudeHome } = await startOuterShell(false);
    expect(await claudeTrusts(claudeHome, cwd)).toBe(false);
    await tmux.typeLine(`node ${CLI} run claude`);
    const idle = await waitForClaude(tmux, IDLE, 'the idle input box');
    expect(idle).not.toContain(TRUST_QUESTION);
    expect(await claudeTrusts(claudeHome, cwd)).toBe(true);
    expect(await exitClaude(tmux)).toBe('0');
    // The question really was on screen: agent-bridge answered it, the user never saw a blank start.
    expect(await recordedOutput(dataDir)).toContain(TRUST_QUESTION);
  });

  it('with --no-auto-trust leaves the question to the user', async () => {
    const { tmux, cwd, claudeHome } = await startOuterShell(false);
    await tmux.typeLine(`node ${CLI} run claude --no-auto-trust`);
    await waitForClaude(tmux, TRUST_QUESTION, 'the folder-trust question');
    // Well past the moment agent-bridge would have answered (it waits STARTUP_ANSWER_DELAY_MS).
    await holdsFor(tmux, (screen) => screen.includes(TRUST_QUESTION), 10 * STARTUP_ANSWER_DELAY_MS);
    expect(await claudeTrusts(claudeHome, cwd)).toBe(false);
    // The user answers: the question was live and waiting for them.
    await tmux.press('Enter');
    await waitForClaude(tmux, IDLE, 'the idle input box');
    expect(await claudeTrusts(claudeHome, cwd)).toBe(true);
    expect(await exitClaude(tmux)).toBe('0');
  });

  it('chats, asks permission for a tool, runs it, exits 0 and restores the terminal', async () => {
    const { tmux, cwd } = await startOuterShell(true);
    const modeBefore = await tmux.shellValue('$(stty -g)');
    await tmux.typeLine(`node ${CLI} run claude`);
    await waitForClaude(tmux, IDLE, 'the idle input box');

    await submit(tmux, 'hello');
    await waitForClaude(tmux, 'Hello from the fake model', 'the reply to hello');

    await submit(tmux, 'please run TOOL:proof.txt');
    await waitForClaude(tmux, 'Do you want to proceed?', 'the permission question');
    expect(existsSync(join(cwd, 'proof.txt'))).toBe(false);
    await tmux.type('1');
    await waitForClaude(tmux, 'Tool finished', 'the reply to the tool result');
    expect(existsSync(join(cwd, 'proof.txt'))).toBe(true);

    expect(await exitClaude(tmux)).toBe('0');
    expect(await tmux.shellValue('$(stty -g)')).toBe(modeBefore);
    const typed = fake.messageRequests().map((request) => request.lastUserText);
    expect(typed).toEqual(expect.arrayContaining(['hello', 'please run TOOL:proof.txt']));
  });
});

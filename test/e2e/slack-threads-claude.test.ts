import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic/server.js';
import { startFakeSlack, type FakeSlack } from '../fakes/slack/server.js';
import { claudeBinary, prepareClaudeHome, type ClaudeHome } from '../support/claude-env.js';
import { CliUnderPty } from '../support/cli-under-pty.js';
import { git, makeRepo } from '../support/git-repo.js';
import { buttonId, CHANNEL, hasButtons, OWNER, shownText, writeSlackConfig } from '../support/slack-setup.js';
import { waitFor } from '../support/wait.js';

let anthropic: FakeAnthropic;
let slack: FakeSlack;
let home: ClaudeHome;
let dir: string;
let repo: string;
let config: string;
let serve: CliUnderPty | null = null;

beforeEach(async () => {
  anthropic = await startFakeAnthropic();
  slack = await startFakeSlack({ channels: [{ id: CHANNEL, name: 'proj' }] });
  dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'ab-slack-threads-')));
  repo = makeRepo(path.join(dir, 'repo'));
  home = await prepareClaudeHome({ baseUrl: anthropic.url, cwd: repo });
  const data = path.join(home.home, '.agent-bridge');
  config = writeSlackConfig(data, slack, repo, ['    agent: claude', '    thread: { isolation: worktree }']);
  const env = { ...home.env, AGENT_BRIDGE_HOME: data, AGENT_BRIDGE_CLAUDE_PATH: claudeBinary() };
  serve = new CliUnderPty(['serve', '--no-web', '--no-terminal', '--config', config], { cwd: dir, env });
  await serve.waitForText('agent-bridge serve: proj on slack');
});

afterEach(async () => {
  await serve?.stop();
  serve = null;
  await slack.close();
  await anthropic.close();
  await home.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

/** A message of the app's in the channel (posted through the Web API), for people to reply under. */
async function appMessage(text: string): Promise<string> {
  const response = await fetch(`${slack.apiRoot}chat.postMessage`, {
    method: 'POST',
    headers: { authorization: `Bearer ${slack.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ channel: CHANNEL, text }),
  });
  return ((await response.json()) as { ts: string }).ts;
}

const inThread = (thread: string, pattern: RegExp) =>
  slack.waitForMessage(
    (m) => m.fromBot && !m.ephemeralFor && m.threadTs === thread && pattern.test(shownText(m)),
    40_000,
  );

describe('a Slack thread runs its own Claude Code in its own git worktree', () => {
  it("answers in the thread; its Bash permission is allowed there and the tool runs in the thread's worktree", async () => {
    const thread = await appMessage('Start a task by replying in this thread');
    const worktree = path.join(repo, '.agent-bridge', 'worktrees', `thread-${thread}`);
    slack.userSends({ user: OWNER, channel: CHANNEL, text: 'hello thread', threadTs: thread });
    await inThread(thread, /Hello from the fake model! You said: hello thread/);
    slack.userSends({
      user: OWNER,
      channel: CHANNEL,
      text: 'please run TOOL:in-thread.txt',
      threadTs: thread,
    });
    const prompt = await inThread(thread, /Permission/);
    expect(hasButtons(prompt)).toBe(true);
    expect(shownText(prompt)).toContain(path.join(worktree, 'in-thread.txt'));
    slack.userPressesButton({ user: OWNER, messageTs: prompt.ts, actionId: buttonId(prompt, '1. Yes') });
    await waitFor('the file in the worktree', () => existsSync(path.join(worktree, 'in-thread.txt')), {
      timeoutMs: 30_000,
    });
    expect(existsSync(path.join(repo, 'in-thread.txt'))).toBe(false);
    await slack.waitFor(() => !hasButtons(prompt), 10_000, 'the prompt updated');
    // The main checkout saw nothing: neither the file nor the worktree folder; the channel got no prompt.
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect(slack.messages.some((m) => m.fromBot && !m.threadTs && /Permission/.test(shownText(m)))).toBe(
      false,
    );
    // The thread is written into the config (quoted: YAML would round the ts). Deleting its first message
    // closes it: the session ends, and the worktree, holding the new file, is kept and said to be.
    expect(readFileSync(config, 'utf8')).toContain(`id: "${thread}"`);
    slack.userDeletesMessage(CHANNEL, thread);
    const notice = await slack.waitForMessage(
      (m) => m.fromBot && !m.threadTs && /was deleted; its worktree .* has uncommitted changes/.test(m.text),
      30_000,
    );
    expect(notice.text).toContain(worktree);
    expect(existsSync(path.join(worktree, 'in-thread.txt'))).toBe(true);
  });
});

// What `serve` says when it starts with no configuration at all: the embedded default a newcomer sees first.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { claudeBinary } from '../support/claude-env.js';
import { CliUnderPty } from '../support/cli-under-pty.js';

let dir: string;
let serve: CliUnderPty | undefined;
afterEach(async () => {
  await serve?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('agent-bridge serve with no agent-bridge.yaml', () => {
  it('says it runs the agent in this folder, where the web UI is, and what to type', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ab-banner-'));
    const folder = path.join(dir, 'empty');
    mkdirSync(folder);
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: dir,
      AGENT_BRIDGE_HOME: path.join(dir, 'data'),
      AGENT_BRIDGE_CLAUDE_PATH: claudeBinary(),
    };
    serve = new CliUnderPty(['serve', '--port', '0'], { cwd: folder, env, cols: 200 });
    await serve.waitForText('/help lists the commands');
    const screen = await serve.screen();
    expect(screen).toContain(
      'agent-bridge serve: claude in this folder, ~/empty, on terminal, web; Ctrl-C to stop (no agent-bridge.yaml: agent-bridge add-repo maps repositories to chats)',
    );
    expect(screen).toMatch(/^agent-bridge serve: open http:\/\/127\.0\.0\.1:\d+\/\?token=\S+$/m);
    expect(screen).toContain('agent-bridge serve: type a message for claude here; /help lists the commands');
    // The folder's name is never presented as if it were a repository or a channel.
    expect(screen).not.toMatch(/serve: empty on/);
  });

  it("lists a session started from the web at the terminal's /sessions", async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ab-banner-'));
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: dir,
      AGENT_BRIDGE_HOME: path.join(dir, 'data'),
    };
    serve = new CliUnderPty(['serve', '--port', '0'], { cwd: dir, env, cols: 200 });
    await serve.waitForText('/help lists the commands');
    const url = new URL(/open (http:\/\/\S+)/.exec(await serve.screen())![1]!);
    const response = await fetch(`${url.origin}/api/sessions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${url.searchParams.get('token')}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ agent: 'custom', cwd: dir, args: ['bash', '--norc', '-i'] }),
    });
    expect(response.status).toBe(201);
    const { id } = (await response.json()) as { id: string };
    await serve.type('/sessions');
    await serve.waitForText(id.slice(0, 8));
  });
});

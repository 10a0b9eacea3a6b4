// `agent-bridge run <agent> --driver structured` and `run acp -- <command>`: the agent speaks its protocol,
// and this terminal is a conversation with it (lines in, messages and numbered prompts out).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI, cli } from '../support/cli-under-pty.js';
import { endChild, waitFor } from '../support/wait.js';

const FAKE = path.join(path.dirname(CLI), '..', 'test', 'fakes', 'acp-agent', 'fake-acp-agent.mjs');
let project: string;
let env: Record<string, string>;
let child: ChildProcessWithoutNullStreams | null = null;

beforeEach(() => {
  project = realpathSync(mkdtempSync(path.join(tmpdir(), 'ab-run-structured-')));
  env = {
    ...(process.env as Record<string, string>),
    AGENT_BRIDGE_HOME: path.join(project, '.ab'),
    FAKE_ACP_STATE: project,
  };
});

afterEach(async () => {
  await endChild(child);
  child = null;
  rmSync(project, { recursive: true, force: true });
});

function run(args: string[]) {
  const proc = spawn(process.execPath, [CLI, 'run', ...args], { cwd: project, env });
  child = proc;
  const output = { stdout: '', stderr: '' };
  proc.stdout.on('data', (d) => (output.stdout += String(d)));
  proc.stderr.on('data', (d) => (output.stderr += String(d)));
  const exit = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const seen = (pattern: RegExp) =>
    waitFor(`${pattern}`, () => pattern.test(output.stdout), { timeoutMs: 20_000 });
  return { proc, output, exit, seen, type: (line: string) => proc.stdin.write(line + '\n') };
}

describe('run --driver structured', () => {
  it('run acp -- <command>: a conversation in this terminal; a prompt with the agent’s options, "1" runs the tool; Ctrl-D ends it', async () => {
    const agent = run(['acp', '--', process.execPath, FAKE]);
    await waitFor('the greeting', () => /speaks its own protocol/.test(agent.output.stderr));
    agent.type('hello there');
    await agent.seen(/Hello from the fake agent! You said: hello there/);
    agent.type('TOOL:run.txt');
    await agent.seen(/1\. Allow once {3}2\. Always allow {3}3\. Reject/);
    agent.type('1');
    await agent.seen(/Tool finished: created run\.txt\./);
    expect(existsSync(path.join(project, 'run.txt'))).toBe(true);
    agent.proc.stdin.end();
    expect(await agent.exit).toBe(0);
  });

  it('refuses, with what to use instead: structured for an agent without a protocol, acp without a command', async () => {
    const aider = await cli(['run', 'aider', '--driver', 'structured'], env);
    expect(aider.code).toBe(2);
    expect(aider.stderr).toMatch(/aider has no structured driver .*use driver terminal or auto/);
    const acp = await cli(['run', 'acp'], env);
    expect(acp.code).toBe(2);
    expect(acp.stderr).toMatch(
      /acp needs the agent command after --, e\.g\. agent-bridge run acp -- opencode acp/,
    );
    const bad = await cli(['run', 'claude', '--driver', 'pty'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/Allowed choices are auto, terminal, structured/);
  });
});

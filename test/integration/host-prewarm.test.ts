// `run` starts its session host's process before it has loaded the rest of itself (prewarmHost): a host that
// is never launched must not outlive the process that started it, nor keep it alive.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { processExists, waitFor } from '../support/wait.js';

const SPAWN_HOST = fileURLToPath(new URL('../../src/sessions/host/spawn-host.ts', import.meta.url));

let script: ChildProcessWithoutNullStreams | null = null;
afterEach(() => {
  script?.kill('SIGKILL');
  script = null;
});

/** A Node process that prewarms a host, then does what its stdin says: `discard`, or ends when it closes. */
function prewarming(): ChildProcessWithoutNullStreams {
  const code = `
    import { prewarmHost, discardPrewarmedHost } from ${JSON.stringify(SPAWN_HOST)};
    prewarmHost();
    process.stdout.write('warm\\n');
    process.stdin.on('data', (line) => {
      if (String(line).trim() === 'discard') discardPrewarmedHost();
      process.stdout.write('done\\n');
    });
  `;
  script = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    stdio: 'pipe',
  });
  return script;
}

function said(child: ChildProcessWithoutNullStreams, line: string): Promise<void> {
  return new Promise((resolve) => {
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes(`${line}\n`)) resolve();
    });
  });
}

/** The session host process `parent` started (its only child running host-main). */
function hostChildOf(parent: number): number | null {
  const children = readFileSync(`/proc/${parent}/task/${parent}/children`, 'utf8').trim().split(/\s+/);
  for (const pid of children.filter(Boolean).map(Number)) {
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (command.includes('host-main')) return pid;
  }
  return null;
}

describe('a prewarmed session host', () => {
  it('ends with the process that started it when no session came, and does not keep that process alive', async () => {
    const child = prewarming();
    await said(child, 'warm');
    const host = await waitFor('the prewarmed host process', () => hostChildOf(child.pid!));
    child.stdin.end();
    // Nothing else holds the script: it ends on its own although its host process was still loading or waiting.
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
    await waitFor('the unused host to end', () => !processExists(host));
  });

  it('ends when it is discarded (a structured session), while its process goes on', async () => {
    const child = prewarming();
    await said(child, 'warm');
    const host = await waitFor('the prewarmed host process', () => hostChildOf(child.pid!));
    const done = said(child, 'done');
    child.stdin.write('discard\n');
    await done;
    await waitFor('the discarded host to end', () => !processExists(host));
    expect(child.exitCode).toBeNull();
  });
});

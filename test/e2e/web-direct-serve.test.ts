import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ServeProcess } from '../support/serve-process.js';
import { endSessionHosts } from '../support/session-hosts.js';
import { waitFor } from '../support/wait.js';

// Issue 14, with the real `agent-bridge serve`: a browser of a shell started from the web is served by the
// shell's session host, so serve is out of the path between the agent and the browser. Frozen (SIGSTOP),
// serve answers nothing, and the terminal still takes keys and shows what they do; when serve goes, the host
// lets the browser go too (the page comes back through the next serve).

let serve: ServeProcess | null = null;
let project: string | null = null;
afterEach(async () => {
  if (serve?.child.pid && serve.child.exitCode === null) {
    process.kill(serve.child.pid, 'SIGCONT');
    serve.child.kill('SIGKILL');
  }
  serve = null;
  if (project) {
    await endSessionHosts(path.join(project, 'data'));
    rmSync(project, { recursive: true, force: true });
  }
  project = null;
});

it('keeps a browser’s terminal live while serve is frozen, and lets it go when serve stops', async () => {
  project = mkdtempSync(path.join(tmpdir(), 'ab-direct-'));
  serve = new ServeProcess([], {
    cwd: project,
    env: { ...(process.env as Record<string, string>), AGENT_BRIDGE_HOME: path.join(project, 'data') },
  });
  const printed = new URL(await serve.url());
  const token = printed.searchParams.get('token')!;
  const started = await fetch(`${printed.origin}/api/sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ agent: 'custom', cwd: project, args: ['bash', '--norc', '--noprofile', '-i'] }),
  });
  expect(started.status).toBe(201);
  const { id } = (await started.json()) as { id: string };
  const ws = new WebSocket(`${printed.origin.replace('http', 'ws')}/ws/terminal/${id}`, {
    headers: { authorization: `Bearer ${token}`, origin: printed.origin },
  });
  let output = '';
  const frames: Array<Record<string, unknown>> = [];
  ws.on('message', (data, binary) => {
    if (binary) output += String(data);
    else frames.push(JSON.parse(String(data)) as Record<string, unknown>);
  });
  await waitFor('hello and the screen', () => frames.length >= 2);
  const type = (data: string) => ws.send(JSON.stringify({ type: 'input', data }));
  type('echo before-$((1+1))\r');
  await waitFor('output while serve runs', () => output.includes('before-2'));

  process.kill(serve.child.pid!, 'SIGSTOP');
  try {
    type('echo frozen-$((2+2))\r');
    await waitFor('output while serve is frozen', () => output.includes('frozen-4'));
  } finally {
    process.kill(serve.child.pid!, 'SIGCONT');
  }

  const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  expect(await serve.stop()).toBe(0);
  expect(await closed).toBe(1001);
});

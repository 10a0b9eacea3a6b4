import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdirSync, openSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WebRecording } from '../../src/channels/web/backend.js';
import { WEB_TOKEN, WebWorld } from '../support/web-world.js';

// Recordings are files in the data folder's recordings/, and whatever else lands there: a link to /etc/passwd
// or /dev/zero, a FIFO, a folder named like a recording (an agent runs as this user and can write there). Only
// regular files of that very folder are listed or served; nothing else is opened, so nothing blocks the server
// (a FIFO's open() waits for a writer, in libuv's threadpool, forever). What is listed is redacted as the audit
// log is: a recorded command line carries the keys it was given.

const SECRET = 'the-secret-outside-recordings';
const ANTHROPIC = 'sk-ant-api03-' + 'Qx7_kP2-vN9m'.repeat(8).slice(0, 96);
const GITHUB = 'ghp_Wq3Er5Ty7Ui9Op1As2Df4Gh6Jk8Lz0Xc2Vb';
const TOKEN_OPTION = 'Tk47uRe9Wq1Zx5Cv';
/** Long enough for a real answer, short enough that a hanging one fails the test instead of the run. */
const PATIENCE_MS = 3000;

let world: WebWorld;
let recordings: string;
const fifo = () => path.join(recordings, 'fifo.cast');

beforeEach(async () => {
  world = await new WebWorld().start();
  recordings = path.join(world.dir, 'data', 'recordings');
  mkdirSync(recordings, { recursive: true });
  const header = {
    version: 2,
    width: 80,
    height: 24,
    timestamp: 1_700_000_000,
    command: `claude --api-key ${ANTHROPIC} --token=${TOKEN_OPTION} ${GITHUB}`,
    title: `deploy with ${GITHUB}`,
  };
  writeFileSync(
    path.join(recordings, '2024-01-01T00-00-00Z-claude-good.cast'),
    `${JSON.stringify(header)}\n[0.5, "o", "hello"]\n[1.25, "o", "bye"]\n`,
  );
  writeFileSync(path.join(world.dir, 'secret.txt'), SECRET);
});

afterEach(async () => {
  // A reader the server left blocked on the FIFO (without the fix) is let go, so the world can close.
  try {
    closeSync(openSync(fifo(), constants.O_WRONLY | constants.O_NONBLOCK));
  } catch {
    // no FIFO, or no reader waiting on it
  }
  await world.close();
});

const get = (route: string) => world.api(route, { signal: AbortSignal.timeout(PATIENCE_MS) });

/** A refusal: a 403 or 404 saying why, as `{ error }`, with nothing of the file. */
async function expectRefused(route: string): Promise<void> {
  const response = await get(route);
  const body = await response.text();
  expect([403, 404], `${route}: ${response.status} ${body.slice(0, 200)}`).toContain(response.status);
  expect(Object.keys(JSON.parse(body) as object)).toEqual(['error']);
  expect(body).not.toContain('root:');
  expect(body).not.toContain(SECRET);
}

describe('recordings from the web', () => {
  it('serves a recording of the folder, and lists it', async () => {
    const listed = (await (await get('/api/recordings')).json()) as WebRecording[];
    expect(listed.map((r) => r.id)).toEqual(['2024-01-01T00-00-00Z-claude-good']);
    expect(listed[0]).toMatchObject({ durationSeconds: 1.25, startedAt: '2023-11-14T22:13:20.000Z' });
    const served = await get('/api/recordings/2024-01-01T00-00-00Z-claude-good');
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toMatch(/^application\/x-asciicast/);
    expect(await served.text()).toContain('[1.25, "o", "bye"]');
  });

  it('never serves a link, to a file outside or even to a recording inside', async () => {
    symlinkSync('/etc/passwd', path.join(recordings, 'evil.cast'));
    symlinkSync(path.join(world.dir, 'secret.txt'), path.join(recordings, 'out.cast'));
    symlinkSync(
      path.join(recordings, '2024-01-01T00-00-00Z-claude-good.cast'),
      path.join(recordings, 'inside.cast'),
    );
    for (const id of ['evil', 'out', 'inside']) await expectRefused(`/api/recordings/${id}`);
  });

  it('never streams a device, and answers at once', async () => {
    symlinkSync('/dev/zero', path.join(recordings, 'zero.cast'));
    symlinkSync('/dev/urandom', path.join(recordings, 'random.cast'));
    for (const id of ['zero', 'random']) await expectRefused(`/api/recordings/${id}`);
  });

  it('never opens a FIFO: the list, the recording and the server keep answering', async () => {
    execFileSync('mkfifo', [fifo()]);
    const listed = (await (await get('/api/recordings')).json()) as WebRecording[];
    expect(listed.map((r) => r.id)).toEqual(['2024-01-01T00-00-00Z-claude-good']);
    // More than libuv's four threads: a blocking open() each would take them all, and the server with them.
    for (let i = 0; i < 6; i++) await expectRefused('/api/recordings/fifo');
    expect((await get('/api/config')).status).toBe(200);
    expect((await get('/api/recordings/2024-01-01T00-00-00Z-claude-good')).status).toBe(200);
  });

  it('lists regular files only: no link (nor its target size), no FIFO, no folder', async () => {
    symlinkSync('/etc/passwd', path.join(recordings, 'evil.cast'));
    symlinkSync('/dev/zero', path.join(recordings, 'zero.cast'));
    symlinkSync(path.join(world.dir, 'no-such-file'), path.join(recordings, 'dangling.cast'));
    mkdirSync(path.join(recordings, 'folder.cast'));
    execFileSync('mkfifo', [fifo()]);
    const response = await get('/api/recordings');
    expect(response.status).toBe(200);
    const listed = (await response.json()) as WebRecording[];
    expect(listed.map((r) => r.id)).toEqual(['2024-01-01T00-00-00Z-claude-good']);
  });

  it('lists command lines and titles redacted, as the audit log writes them', async () => {
    const body = await (await get('/api/recordings')).text();
    for (const secret of [ANTHROPIC, GITHUB, TOKEN_OPTION]) expect(body).not.toContain(secret);
    const [listed] = JSON.parse(body) as WebRecording[];
    expect(listed!.command).toBe('claude --api-key [redacted] --token=[redacted] [redacted]');
    expect(listed!.title).toBe('deploy with [redacted]');
  });

  it('takes a recording by its exact id only', async () => {
    for (const id of [
      '2024-01-01T00-00-00Z-claude-goo',
      '2024',
      '2024-01-01T00-00-00Z-claude-good.cast',
      '.',
    ])
      await expectRefused(`/api/recordings/${encodeURIComponent(id)}`);
    const raw = await fetch(`${world.url}/api/recordings/`, {
      headers: { authorization: `Bearer ${WEB_TOKEN}` },
      signal: AbortSignal.timeout(PATIENCE_MS),
    });
    expect(raw.status).toBe(404);
  });
});

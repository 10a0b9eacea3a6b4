import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hostFile, listen, startTestHost, type TestHost } from '../support/test-host.js';
import { processExists, waitFor } from '../support/wait.js';

// A session host on its own (issue 18): the agent's output from its first byte to its last, to every client
// and into the recording; keys from any client; the size following whoever typed last; keys typed on
// someone's behalf at most once, and only onto the screen that was read; control handed from one client to
// the next; finished lines and hook posts kept for a controller that was away.

let dir: string;
const hosts: TestHost[] = [];
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ab-host-'));
});
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.end().catch(() => undefined)));
  rmSync(dir, { recursive: true, force: true });
});

async function host(script: string, options: Parameters<typeof startTestHost>[2] = {}): Promise<TestHost> {
  const started = await startTestHost(dir, script, options);
  hosts.push(started);
  return started;
}

describe('a session host', () => {
  it('loses nothing at the exit: every byte reaches the client and the recording, then the exit, then it is gone', async () => {
    const recording = path.join(dir, 'r.cast');
    const expected = path.join(dir, 'expected.txt');
    const started = await host(`seq 1 40000 | tee ${expected}; exit 4`, {
      recording: { width: 80, height: 24, timestamp: 0 },
      session: { recording },
    });
    const connection = await started.connect({ control: 'if-free' });
    const seen = listen(connection);
    await waitFor('the exit', () => seen.frames.find((f) => f.type === 'exit'));
    const exit = seen.frames.find((f) => f.type === 'exit') as unknown as { report: { exitCode: number } };
    expect(exit.report.exitCode).toBe(4);
    const wanted = readFileSync(expected, 'utf8');
    expect(seen.output().replace(/\r\n/g, '\n')).toBe(wanted);
    connection.send({ type: 'done' });
    await waitFor('the host gone', () => !existsSync(started.socket));
    const cast = readFileSync(recording, 'utf8').trim().split('\n').slice(1);
    const recorded = cast.map((line) => (JSON.parse(line) as [number, string, string])[2]).join('');
    expect(recorded.replace(/\r\n/g, '\n')).toBe(wanted);
    expect(existsSync(hostFile(dir, `${started.id}.secret`))).toBe(false);
    // The controller recorded the end: the host's own note of it is gone too.
    expect(existsSync(hostFile(dir, `${started.id}.exit`))).toBe(false);
  });

  it('lets a client far behind read to the end and the exit before it goes', async () => {
    // 900 KB: below the backlog that pauses the agent, far above what the kernel holds for a socket.
    const started = await host("sleep 0.3; head -c 900000 /dev/zero | tr '\\0' a; exit 3");
    const slow = await started.connect();
    const seen = listen(slow);
    // It reads nothing (a terminal on a slow link) while the agent prints everything and ends.
    const socket = (slow as unknown as { socket: { pause(): void; resume(): void } }).socket;
    socket.pause();
    await waitFor('the host to finish (its socket removed)', () => !existsSync(started.socket), {
      timeoutMs: 15_000,
    });
    // Longer than a host that cut its clients off a second after the end (it lost the tail, and the exit).
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    socket.resume();
    await waitFor('the exit', () => seen.frames.find((f) => f.type === 'exit'));
    expect(seen.output().replace(/[^a]/g, '')).toHaveLength(900_000);
    expect(seen.frames.find((f) => f.type === 'exit')).toMatchObject({ report: { exitCode: 3 } });
  });

  it('ends its agent, and itself, when nobody ever attaches (its spawner died before it could)', async () => {
    const started = await host('sleep 100', { firstClientMs: 300 });
    await waitFor('the unclaimed agent to end', () => !processExists(started.agentPid), {
      timeoutMs: 15_000,
    });
    await waitFor('its host to end', () => !processExists(started.hostPid), { timeoutMs: 15_000 });
    // Nothing is left for anyone to find: no socket, secret or exit report (no session of the store is its).
    expect(readdirSync(path.dirname(started.socket))).toEqual([]);
  });

  it('shows a client that joins during a burst its screen, then every later byte once (output is gathered)', async () => {
    // Output keeps coming, in bulk writes, until told to stop: the second client joins while it is gathered.
    writeFileSync(
      path.join(dir, 'lines.txt'),
      Array.from({ length: 20_000 }, (_, i) => `line ${i}\n`).join(''),
    );
    const started = await host(
      'n=0; while [ ! -e stop ]; do n=$((n+1)); echo "pass $n"; cat lines.txt; done',
    );
    const first = await started.connect({ control: 'if-free' });
    const seenFirst = listen(first);
    await waitFor('a burst under way', () => seenFirst.output().length > 256 * 1024);
    const late = await started.connect({});
    const seenLate = listen(late);
    await waitFor('the late client reading', () => seenLate.output().length > 256 * 1024);
    writeFileSync(path.join(dir, 'stop'), '');
    for (const seen of [seenFirst, seenLate])
      await waitFor('the exit', () => seen.frames.find((f) => f.type === 'exit'));
    const total = first.welcome.outputAt + Buffer.byteLength(seenFirst.output());
    expect(late.welcome.outputAt + Buffer.byteLength(seenLate.output())).toBe(total);
    // What came after the welcome continues the first client's stream exactly where the screen stood.
    const after = seenFirst.output().slice(late.welcome.outputAt - first.welcome.outputAt);
    expect(seenLate.output()).toBe(after);
  });

  it('shows every client the output and takes keys from each; the controller hears what the others typed', async () => {
    const started = await host('while read -r line; do echo "got [$line]"; done');
    const controller = await started.connect({ control: 'if-free', drives: true });
    const other = await started.connect({ drives: true });
    expect([controller.welcome.control, other.welcome.control]).toEqual(['granted', 'none']);
    const [fromController, fromOther] = [listen(controller), listen(other)];
    other.sendInput('from-other\r');
    controller.sendInput('from-controller\r');
    for (const seen of [fromController, fromOther])
      await waitFor('both lines', () =>
        /got \[from-other\][\s\S]*got \[from-controller\]/.test(seen.output()),
      );
    expect(fromController.frames).toContainEqual({ type: 'typed', data: 'from-other\r' });
    expect(fromOther.frames.some((f) => f.type === 'typed')).toBe(false);
  });

  it('takes the size of the client that typed last (tmux: window-size latest)', async () => {
    const started = await host('while read -r line; do stty size; done');
    const wide = await started.connect({ drives: true, size: { cols: 120, rows: 40 } });
    const narrow = await started.connect({ drives: true, size: { cols: 60, rows: 20 } });
    const seen = listen(narrow);
    listen(wide);
    narrow.sendInput('\r');
    await waitFor('the narrow size', () => seen.output().includes('20 60'));
    wide.sendInput('\r');
    await waitFor('the wide size', () => seen.output().includes('40 120'));
    expect(seen.frames).toContainEqual({ type: 'size', cols: 120, rows: 40, driving: false });
  });

  it('types an injection only onto the screen the controller read, and at most once', async () => {
    const started = await host('while read -r line; do echo "got [$line]"; done');
    const controller = await started.connect({ control: 'if-free' });
    const seen = listen(controller);
    const at = controller.welcome.outputAt;
    controller.sendInput('moved\r');
    await waitFor('output since', () => seen.output().includes('got [moved]'));
    const stale = await controller.request({ type: 'inject', parts: ['no\r'], gapMs: 0, ifOutputAt: at });
    expect(stale).toMatchObject({ ok: true, typed: false });
    const once = { type: 'inject' as const, parts: ['yes', '\r'], gapMs: 10, once: 'prompt-1' };
    expect(await controller.request(once)).toMatchObject({ typed: true });
    expect(await controller.request(once)).toMatchObject({ typed: true });
    expect(await controller.request({ type: 'injected', id: 'prompt-1' })).toMatchObject({ typed: true });
    expect(await controller.request({ type: 'injected', id: 'prompt-2' })).toMatchObject({ typed: false });
    await waitFor('the answer', () => seen.output().includes('got [yes]'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(seen.output().match(/got \[yes\]/g)).toHaveLength(1);
    expect(seen.output()).not.toContain('got [no]');
  });

  it('hands control to the client waiting for it when the controller lets go, with the lines it missed', async () => {
    const started = await host('while read -r line; do echo "line $line"; done', { lines: true });
    const first = await started.connect({ control: 'if-free' });
    const seenFirst = listen(first);
    first.sendInput('one\r');
    await waitFor('line one numbered', () =>
      seenFirst.frames.some((f) => f.type === 'lines' && JSON.stringify(f).includes('line one')),
    );
    const waiting = await started.connect({ control: 'wait', output: false });
    expect(waiting.welcome.control).toBe('waiting');
    const seenWaiting = listen(waiting);
    first.send({ type: 'release' });
    first.close();
    await waitFor('control', () => seenWaiting.frames.find((f) => f.type === 'control'));
    // While the first had it, nothing was said of line two; the new controller asks from where it read.
    const other = await started.connect({ drives: true });
    listen(other);
    other.sendInput('two\r');
    await waitFor('line two', () =>
      seenWaiting.frames.some((f) => f.type === 'lines' && JSON.stringify(f).includes('line two')),
    );
    waiting.send({ type: 'lines', after: 0 });
    await waitFor('every line again', () =>
      seenWaiting.frames.some((f) => f.type === 'lines' && (f as unknown as { first: number }).first === 1),
    );
  });
});

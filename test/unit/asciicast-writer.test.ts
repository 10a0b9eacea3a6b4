import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AsciicastWriter,
  RECORD_BATCH_MS,
  parkRecordingsThread,
  recordingsThreadRunning,
} from '../../src/store/asciicast-writer.js';
import { describeRecording, listRecordings, UnknownRecordingError } from '../../src/store/recordings.js';
import { FakeClock } from '../support/fake-clock.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ab-cast-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function lines(file: string): unknown[] {
  return readFileSync(file, 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as unknown);
}

describe('asciicast v2 writer', () => {
  it('writes a header and timed output events, batching close writes', async () => {
    const clock = new FakeClock();
    const file = path.join(dir, 'a.cast');
    const writer = new AsciicastWriter(
      file,
      { width: 80, height: 24, timestamp: 1700000000, command: 'bash' },
      clock,
    );
    writer.output(Buffer.from('hel'));
    clock.advance(5);
    writer.output(Buffer.from('lo'));
    clock.advance(RECORD_BATCH_MS);
    clock.advance(1000);
    writer.output(Buffer.from('!'));
    await writer.close();
    const [header, first, second] = lines(file) as [Record<string, unknown>, unknown[], unknown[]];
    expect(header).toMatchObject({
      version: 2,
      width: 80,
      height: 24,
      timestamp: 1700000000,
      command: 'bash',
    });
    expect(first).toEqual([0, 'o', 'hello']);
    expect(second[1]).toBe('o');
    expect(second[2]).toBe('!');
    expect(second[0]).toBeCloseTo(1.025, 5);
  });

  it('keeps a UTF-8 character that is split across two reads', async () => {
    const clock = new FakeClock();
    const file = path.join(dir, 'b.cast');
    const writer = new AsciicastWriter(file, { width: 80, height: 24, timestamp: 0 }, clock);
    const bytes = Buffer.from('é✳', 'utf8');
    writer.output(bytes.subarray(0, 1));
    clock.advance(RECORD_BATCH_MS);
    writer.output(bytes.subarray(1));
    await writer.close();
    const text = (lines(file).slice(1) as unknown[][]).map((event) => event[2]).join('');
    expect(text).toBe('é✳');
  });

  it('records resizes as "r" events and is private to the user', async () => {
    const file = path.join(dir, 'c.cast');
    const writer = new AsciicastWriter(file, { width: 80, height: 24, timestamp: 0 }, new FakeClock());
    writer.output(Buffer.from('x'));
    writer.resize(100, 30);
    await writer.close();
    expect((lines(file) as unknown[][]).map((e) => e[1])).toEqual([undefined, 'o', 'r']);
    expect((lines(file)[2] as unknown[])[2]).toBe('100x30');
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('never overwrites an existing recording, and says the recording stopped', async () => {
    const file = path.join(dir, 'd.cast');
    await new AsciicastWriter(file, { width: 1, height: 1, timestamp: 0 }).close();
    const stopped: Error[] = [];
    const again = new AsciicastWriter(file, { width: 2, height: 2, timestamp: 0 }, new FakeClock(), (e) =>
      stopped.push(e),
    );
    again.output(Buffer.from('lost'));
    await again.close();
    expect(lines(file)[0]).toMatchObject({ width: 1 });
    expect(stopped.map((e) => (e as { code?: string }).code)).toEqual(['EEXIST']);
  });

  it('records every byte of a long mixed stream, split anywhere, as the text it decodes to', async () => {
    const clock = new FakeClock();
    const file = path.join(dir, 'long.cast');
    const writer = new AsciicastWriter(file, { width: 80, height: 24, timestamp: 0 }, clock);
    const text = Array.from({ length: 20_000 }, (_, i) => `line ${i} é✳ "q" \\ \x1b[3${i % 8}m\t\r\n`).join(
      '',
    );
    const bytes = Buffer.from(text, 'utf8');
    // Reads split characters and escapes anywhere; batches close at their size or after their time.
    for (let at = 0, i = 0; at < bytes.length; i++) {
      const size = 1 + ((i * 7919) % 5000);
      writer.output(bytes.subarray(at, at + size));
      at += size;
      if (i % 13 === 0) clock.advance(RECORD_BATCH_MS);
    }
    await writer.close();
    const events = lines(file).slice(1) as Array<[number, string, string]>;
    expect(events.map((e) => e[2]).join('')).toBe(text);
    const times = events.map((e) => e[0]);
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it('records three streams at once, each far larger than the thread can take in one go, every byte in order', async () => {
    // Written without a pause, 12 MiB fill the recordings' ring (2 MiB) many times over: what does not fit
    // waits on this thread until the recordings' thread has read on. Three recordings share the ring.
    const clock = new FakeClock();
    const texts = ['a', 'b', 'c'].map((tag) =>
      Array.from({ length: 150_000 }, (_, i) => `${tag}${i} é✳ "q" \\ \x1b[3${i % 8}m\r\n`).join(''),
    );
    const writers = texts.map(
      (_, i) =>
        new AsciicastWriter(path.join(dir, `big-${i}.cast`), { width: 80, height: 24, timestamp: 0 }, clock),
    );
    const streams = texts.map((text) => Buffer.from(text, 'utf8'));
    const longest = Math.max(...streams.map((s) => s.length));
    for (let at = 0, i = 0; at < longest; i++) {
      const size = 1 + ((i * 7919) % 9000);
      streams.forEach((bytes, w) => writers[w]!.output(bytes.subarray(at, at + size)));
      at += size;
      if (i % 97 === 0) clock.advance(RECORD_BATCH_MS);
    }
    await Promise.all(writers.map((writer) => writer.close()));
    texts.forEach((text, i) => {
      const events = lines(path.join(dir, `big-${i}.cast`)).slice(1) as Array<[number, string, string]>;
      expect(events.map((e) => e[2]).join('')).toBe(text);
    });
  });

  it('says a recording whose header is too large to record stopped, and the next one records', async () => {
    const stopped: Error[] = [];
    const huge = new AsciicastWriter(
      path.join(dir, 'huge.cast'),
      { width: 80, height: 24, timestamp: 0, command: 'x'.repeat(300 * 1024) },
      new FakeClock(),
      (error) => stopped.push(error),
    );
    huge.output(Buffer.from('never written'));
    await huge.close();
    expect(stopped.map((e) => e.message)).toEqual([expect.stringMatching(/header is \d+ bytes/)]);
    const file = path.join(dir, 'after.cast');
    const next = new AsciicastWriter(file, { width: 80, height: 24, timestamp: 0 }, new FakeClock());
    next.output(Buffer.from('fine'));
    await next.close();
    expect((lines(file)[1] as unknown[])[2]).toBe('fine');
  });

  it('is listed with its start time, duration and command', async () => {
    const clock = new FakeClock();
    const file = path.join(dir, 'e.cast');
    const writer = new AsciicastWriter(
      file,
      { width: 80, height: 24, timestamp: 1700000000, command: 'claude' },
      clock,
    );
    clock.advance(2500);
    writer.output(Buffer.from('bye'));
    await writer.close();
    expect(await describeRecording(file)).toMatchObject({
      id: 'e',
      command: 'claude',
      startedAt: new Date(1700000000 * 1000).toISOString(),
      durationSeconds: 2.5,
    });
    expect((await listRecordings(dir)).recordings.map((r) => r.id)).toEqual(['e']);
    expect(await listRecordings(path.join(dir, 'missing'))).toEqual({ recordings: [], total: 0, next: null });
  });

  it('parks its thread when quiet, and the next thread goes on with every recording where it stood', async () => {
    const clock = new FakeClock();
    const file = path.join(dir, 'parked.cast');
    const writer = new AsciicastWriter(file, { width: 80, height: 24, timestamp: 0 }, clock);
    const split = Buffer.from('✳', 'utf8');
    writer.output(Buffer.concat([Buffer.from('before "q" '), split.subarray(0, 2)]));
    clock.advance(RECORD_BATCH_MS);
    expect(recordingsThreadRunning()).toBe(true);
    await parkRecordingsThread();
    expect(recordingsThreadRunning()).toBe(false);
    // The file stays open while no thread runs; a character split across the park is kept whole.
    writer.output(Buffer.concat([split.subarray(2), Buffer.from(' after')]));
    clock.advance(RECORD_BATCH_MS);
    expect(recordingsThreadRunning()).toBe(true);
    const second = new AsciicastWriter(path.join(dir, 'second.cast'), {
      width: 80,
      height: 24,
      timestamp: 0,
    });
    second.output(Buffer.from('another'));
    await parkRecordingsThread();
    await Promise.all([writer.close(), second.close()]);
    const text = (f: string) =>
      (lines(f).slice(1) as Array<[number, string, string]>).map((e) => e[2]).join('');
    expect(text(file)).toBe('before "q" ✳ after');
    expect(text(path.join(dir, 'second.cast'))).toBe('another');
  });

  it('loses nothing written while its thread parks, nor what waited for room in a full ring', async () => {
    const clock = new FakeClock();
    const file = path.join(dir, 'racing.cast');
    const writer = new AsciicastWriter(file, { width: 80, height: 24, timestamp: 0 }, clock);
    const text = Array.from({ length: 300_000 }, (_, i) => `${i} é✳ \x1b[3${i % 8}m\r\n`).join('');
    const bytes = Buffer.from(text, 'utf8');
    const parks: Array<Promise<void>> = [];
    for (let at = 0, i = 0; at < bytes.length; i++) {
      const size = 1 + ((i * 7919) % 6000);
      writer.output(bytes.subarray(at, at + size));
      at += size;
      if (i % 50 === 0) clock.advance(RECORD_BATCH_MS);
      if (i % 100 === 0) parks.push(parkRecordingsThread());
      if (i % 300 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    await writer.close();
    await Promise.all(parks);
    const events = lines(file).slice(1) as Array<[number, string, string]>;
    expect(events.map((e) => e[2]).join('')).toBe(text);
  });

  it('lasts until it closed, however long the session was quiet at its end, with nothing more shown', async () => {
    const clock = new FakeClock();
    const file = path.join(dir, 'quiet.cast');
    const writer = new AsciicastWriter(file, { width: 80, height: 24, timestamp: 0 }, clock);
    clock.advance(1000);
    writer.output(Buffer.from('working'));
    clock.advance(RECORD_BATCH_MS);
    clock.advance(90_000);
    await writer.close();
    const events = lines(file).slice(1) as Array<[number, string, string]>;
    expect(events.map((e) => e[2]).join('')).toBe('working');
    expect(events.at(-1)).toEqual([91.02, 'o', '']);
    expect((await describeRecording(file)).durationSeconds).toBeCloseTo(91.02, 5);
  });
  it('are listed a page at a time, newest first, opening only the page', async () => {
    // Names sort by time, as agent-bridge names them; a page opens only its own files.
    const names = Array.from({ length: 7 }, (_, i) => `2026-01-0${i + 1}T00-00-00-000Z-shell-0000000${i}`);
    for (const name of names)
      writeFileSync(path.join(dir, `${name}.cast`), '{"version":2,"width":80,"height":24}\n');
    writeFileSync(path.join(dir, `${names[0]}.cast`), 'not json at all'); // unread unless its page is read
    const first = await listRecordings(dir, { limit: 3 });
    expect(first.recordings.map((r) => r.id)).toEqual([names[6], names[5], names[4]]);
    expect(first).toMatchObject({ total: 7, next: names[4] });
    const second = await listRecordings(dir, { limit: 3, before: first.next! });
    expect(second.recordings.map((r) => r.id)).toEqual([names[3], names[2], names[1]]);
    const last = await listRecordings(dir, { limit: 3, before: second.next! });
    expect(last.recordings.map((r) => r.id)).toEqual([names[0]]);
    expect(last.next).toBeNull();
    expect(last.recordings[0]).toMatchObject({ width: null, startedAt: null });
  });

  it('refuse a page before a recording that is not there, rather than guess where to start', async () => {
    const names = ['2026-01-01T00-00-00-000Z-shell-00000000', '2026-01-02T00-00-00-000Z-shell-00000001'];
    for (const name of names)
      writeFileSync(path.join(dir, `${name}.cast`), '{"version":2,"width":80,"height":24}\n');
    // An id that sorts after every name, a session id, one before every name, and no recordings at all.
    for (const before of ['nosuch', '00000001', '1', ''])
      await expect(listRecordings(dir, { before })).rejects.toThrow(UnknownRecordingError);
    await expect(listRecordings(path.join(dir, 'missing'), { before: names[0]! })).rejects.toThrow(
      `no recording ${names[0]}`,
    );
    expect((await listRecordings(dir, { before: names[1]! })).recordings.map((r) => r.id)).toEqual([
      names[0],
    ]);
  });
});

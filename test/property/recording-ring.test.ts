import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  RECORD_CLOSE,
  RECORD_OUTPUT,
  RECORD_RESIZE,
  RingReader,
  RingWriter,
  createRing,
} from '../../src/store/recording-ring.js';

/** What a stream of records says, with the pieces of one event (same recording and time) joined. */
interface Item {
  kind: number;
  id: number;
  seconds: number;
  bytes: string;
}

function normalise(items: Item[]): Item[] {
  const joined: Item[] = [];
  for (const item of items) {
    const last = joined.at(-1);
    if (
      item.kind === RECORD_OUTPUT &&
      last?.kind === RECORD_OUTPUT &&
      last.id === item.id &&
      last.seconds === item.seconds
    )
      last.bytes += item.bytes;
    else if (item.kind !== RECORD_OUTPUT || item.bytes.length > 0) joined.push({ ...item });
  }
  return joined;
}

const step = fc.oneof(
  fc.record({
    op: fc.constant('output' as const),
    id: fc.integer({ min: 1, max: 3 }),
    seconds: fc.integer({ min: 0, max: 3 }),
    bytes: fc.uint8Array({ maxLength: 700 }),
  }),
  fc.record({ op: fc.constantFrom('resize' as const, 'close' as const), id: fc.integer({ min: 1, max: 3 }) }),
  fc.constant({ op: 'publish' as const }),
  fc.constant({ op: 'read' as const }),
);

describe('recording ring', () => {
  it('hands every record over in order, however it fills, wraps and waits for room', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 80 }), async (steps) => {
        const ring = createRing(1024);
        const writer = new RingWriter(ring);
        const reader = new RingReader(ring);
        const written: Item[] = [];
        const read: Item[] = [];
        const readAll = async () => {
          for (const { kind, id, seconds, data } of reader.read())
            read.push({ kind, id, seconds, bytes: Buffer.concat(data).toString('latin1') });
          // The reader's thread would post 'room'; the writer's then moves what waits in.
          if (reader.release()) writer.roomMade();
          await Promise.resolve(); // a room check the writer queued
        };
        for (const s of steps) {
          if (s.op === 'output') {
            writer.output(s.id, s.seconds, s.bytes);
            written.push({
              kind: RECORD_OUTPUT,
              id: s.id,
              seconds: s.seconds,
              bytes: Buffer.from(s.bytes).toString('latin1'),
            });
          } else if (s.op === 'resize' || s.op === 'close') {
            const kind = s.op === 'resize' ? RECORD_RESIZE : RECORD_CLOSE;
            const bytes = s.op === 'resize' ? '80x24' : '';
            writer.record(kind, s.id, 1.5, Buffer.from(bytes));
            written.push({ kind, id: s.id, seconds: 1.5, bytes });
          } else if (s.op === 'publish') writer.publish();
          else await readAll();
        }
        writer.publish();
        // Whatever waited for room goes in as the reader reads on.
        for (let rounds = 0; rounds < 1000 && (writer.backlog > 0 || read.length === 0); rounds++)
          await readAll();
        await readAll();
        expect(writer.backlog).toBe(0);
        expect(normalise(read)).toEqual(normalise(written));
      }),
      { numRuns: 500 },
    );
  });

  it('never lets the writer overwrite what the reader has not released', async () => {
    const ring = createRing(1024);
    const writer = new RingWriter(ring);
    const reader = new RingReader(ring);
    writer.output(1, 0, Buffer.alloc(600, 'a'));
    writer.publish();
    const [held] = reader.read();
    // Not released: of a second 600 bytes only what fits goes in; the rest waits for room.
    writer.output(1, 1, Buffer.alloc(600, 'b'));
    writer.publish();
    await Promise.resolve();
    expect(writer.backlog).toBe(1);
    expect(Buffer.concat(held!.data).toString()).toBe('a'.repeat(600));
    expect(reader.release()).toBe(true); // the writer asked to hear of room
    writer.roomMade();
    expect(writer.backlog).toBe(0);
    expect(
      reader
        .read()
        .map((r) => Buffer.concat(r.data).toString())
        .join(''),
    ).toBe('b'.repeat(600));
  });

  it('refuses a size that is not a power of two', () => {
    expect(() => createRing(3000)).toThrow(/power of two/);
  });
});

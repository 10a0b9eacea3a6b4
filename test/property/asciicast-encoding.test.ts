import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonOutputEncoder } from '../../src/store/asciicast-encoding.js';

/** Terminal-like bytes: text in any script, escapes and controls, and bytes that are not UTF-8 at all. */
const pieces = fc.array(
  fc.oneof(
    fc.string({ unit: 'grapheme', maxLength: 20 }).map((text) => Buffer.from(text, 'utf8')),
    fc.constantFrom(
      ...['\x1b[31m', '\x1b[2J', '"', '\\', '\t\r\n', '\x00\x7f', '█─│', '😀'].map((s) => Buffer.from(s)),
    ),
    fc.uint8Array({ maxLength: 8 }).map((bytes) => Buffer.from(bytes)),
  ),
  { maxLength: 40 },
);

describe('asciicast output encoding', () => {
  it('gives exactly what decoding the whole stream as UTF-8 and JSON.stringify give, however it is split', () => {
    fc.assert(
      fc.property(pieces, fc.array(fc.nat(), { maxLength: 10 }), (parts, cuts) => {
        const stream = Buffer.concat(parts);
        const points = [...new Set(cuts.map((c) => c % (stream.length + 1)))].sort((a, b) => a - b);
        const encoder = new JsonOutputEncoder();
        const bodies: Buffer[] = [];
        let from = 0;
        for (const point of [...points, stream.length]) {
          bodies.push(...encoder.write(stream.subarray(from, point)));
          from = point;
        }
        bodies.push(...encoder.end());
        const expected = JSON.stringify(stream.toString('utf8')).slice(1, -1);
        // However it is split, the bodies joined are those very bytes.
        expect(Buffer.concat(bodies).toString('utf8')).toBe(expected);
        expect(JSON.parse(`"${Buffer.concat(bodies).toString('utf8')}"`)).toBe(stream.toString('utf8'));
      }),
      { numRuns: 2000 },
    );
  });

  it('escapes long valid text exactly, wherever its chunks start and end in memory (sixteen bytes a step)', () => {
    // Valid UTF-8 only, in chunks long enough to be looked at sixteen bytes a step, at every alignment.
    const text = fc.array(
      fc.oneof(
        fc.string({ unit: 'grapheme', maxLength: 40 }),
        fc.constantFrom('\x1b[31m', '"', '\\', '\r\n', '\x00\x7f', '█─│', 'a'.repeat(70), '\\"\x1f'),
      ),
      { minLength: 1, maxLength: 60 },
    );
    fc.assert(
      fc.property(text, fc.nat({ max: 7 }), (parts, offset) => {
        const stream = Buffer.from(parts.join(''), 'utf8');
        // The same bytes at `offset` in a larger buffer: the chunk starts at another alignment.
        const shifted = Buffer.alloc(stream.length + offset);
        stream.copy(shifted, offset);
        const encoder = new JsonOutputEncoder();
        const body = Buffer.concat([...encoder.write(shifted.subarray(offset)), ...encoder.end()]);
        expect(body.toString('utf8')).toBe(JSON.stringify(stream.toString('utf8')).slice(1, -1));
      }),
      { numRuns: 2000 },
    );
  });
});

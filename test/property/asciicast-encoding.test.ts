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
          bodies.push(encoder.write(stream.subarray(from, point)));
          from = point;
        }
        bodies.push(encoder.end());
        const expected = JSON.stringify(stream.toString('utf8')).slice(1, -1);
        // However it is split, the bodies joined are those very bytes.
        expect(Buffer.concat(bodies).toString('utf8')).toBe(expected);
        expect(JSON.parse(`"${Buffer.concat(bodies).toString('utf8')}"`)).toBe(stream.toString('utf8'));
      }),
      { numRuns: 2000 },
    );
  });
});

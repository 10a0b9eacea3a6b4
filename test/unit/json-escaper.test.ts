import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { JSON_ESCAPE_WASM } from '../../src/store/json-escape-wasm.js';
import { ESCAPE_SLICE_BYTES, jsonEscaper } from '../../src/store/json-escaper.js';

const escapeInPieces = jsonEscaper()!;
const escape = (bytes: Buffer) => Buffer.concat(escapeInPieces(bytes));
const asJson = (bytes: Buffer) => JSON.stringify(bytes.toString('utf8')).slice(1, -1);

describe('the recordings’ JSON escaper (WebAssembly)', () => {
  it('runs here (Node 20 has WebAssembly with SIMD)', () => {
    expect(escape).toBeTypeOf('function');
  });

  it('is json-escape.wat as it is now: the compiled module in the sources was made from it', async () => {
    const { compiledModule } = await import('../../scripts/build-wasm.mjs');
    const committed = readFileSync(new URL('../../src/store/json-escape-wasm.ts', import.meta.url), 'utf8');
    expect(committed).toBe(await compiledModule());
    expect(committed).toContain(JSON_ESCAPE_WASM);
  });

  it('escapes every byte value below 0x80 as JSON.stringify does, at every place in a 16-byte step', () => {
    for (let byte = 0; byte < 0x80; byte++)
      for (let at = 0; at < 40; at++) {
        const bytes = Buffer.alloc(41, 'x');
        bytes[at] = byte;
        expect(escape(bytes).toString('utf8')).toBe(asJson(bytes));
      }
  });

  it('copies text in other scripts byte for byte, and gives back output with nothing to escape as it is', () => {
    const text = Buffer.from('█─│ 日本語 😀 ü'.repeat(50), 'utf8');
    expect(escapeInPieces(text)).toEqual([text]);
    expect(escapeInPieces(text)[0]).toBe(text);
    const mixed = Buffer.from('█─│\x1b[31m"😀"\\ ü\r\n'.repeat(50), 'utf8');
    expect(escape(mixed).toString('utf8')).toBe(asJson(mixed));
  });

  it('escapes output larger than a slice, and a slice’s end in the middle of a character, whole', () => {
    const line = Buffer.from('[build] compiled "main.ts" ✓ 😀\r\n\x1b[0m');
    const bytes = Buffer.concat(
      Array.from({ length: Math.ceil((3 * ESCAPE_SLICE_BYTES) / line.length) }, () => line),
    );
    expect(bytes.length).toBeGreaterThan(2 * ESCAPE_SLICE_BYTES);
    // 256 KiB does not fall on a line's end here: the slices cut characters.
    expect(ESCAPE_SLICE_BYTES % line.length).not.toBe(0);
    const pieces = escapeInPieces(bytes);
    // A piece per slice, never joined (that would copy every byte again).
    expect(pieces).toHaveLength(Math.ceil(bytes.length / ESCAPE_SLICE_BYTES));
    expect(Buffer.concat(pieces).toString('utf8')).toBe(asJson(bytes));
    // The next call gets memory of its own: what came out before is not written over.
    const copies = pieces.map((piece) => Buffer.from(piece));
    escapeInPieces(Buffer.alloc(100_000, '\n'));
    expect(pieces.every((piece, i) => piece.equals(copies[i]!))).toBe(true);
  });

  it('leaves recordings exact where WebAssembly cannot run (node --jitless): the string path escapes', () => {
    const stream = 'a\r\n"x\x1b[0m\\ é ✓\x00';
    const script = `const m = await import('./src/store/asciicast-encoding.ts');
      const encoder = new m.JsonOutputEncoder();
      const body = Buffer.concat([...encoder.write(Buffer.from(${JSON.stringify(stream)})), ...encoder.end()]);
      process.stdout.write(JSON.stringify({ wasm: typeof WebAssembly, body: body.toString('utf8') }));`;
    const output = execFileSync(
      process.execPath,
      ['--jitless', '--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: new URL('../..', import.meta.url), encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
    );
    expect(JSON.parse(output)).toEqual({ wasm: 'undefined', body: asJson(Buffer.from(stream)) });
  });
});

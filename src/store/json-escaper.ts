import { JSON_ESCAPE_WASM } from './json-escape-wasm.js';

/** Bytes given to the escaper at once: its memory stays under 2 MiB, whatever the size of a batch. */
export const ESCAPE_SLICE_BYTES = 256 * 1024;
/** Where the escapes table ends and the input starts in the escaper's memory (json-escape.wat). */
const INPUT_AT = 1024;
const WASM_PAGE = 64 * 1024;

interface Exports {
  memory: WebAssembly.Memory;
  escape(src: number, len: number, dst: number): number;
}

/**
 * Valid UTF-8 as the body of a JSON string, in pieces (`"`, `\` and controls escaped as JSON.stringify does), by the
 * WebAssembly escaper (json-escape.wat: sixteen bytes a step). A JavaScript escaper called a native copy per
 * run between two escapes, one per line of ordinary output: ~9 ms of CPU per MB of build log on the
 * recordings' thread, more than recording everything else cost. Null where WebAssembly cannot run (`node
 * --jitless`, a CPU without SIMD): the caller decodes and uses JSON.stringify.
 */
export function jsonEscaper(): ((bytes: Buffer) => Buffer[]) | null {
  const escaper = instantiate();
  if (!escaper) return null;
  // Slice by slice, the pieces as they come out: joining them would copy every byte once more (a fifth of
  // the recordings' thread's CPU); the file takes them as they are, in one write.
  return (bytes) => {
    if (bytes.length <= ESCAPE_SLICE_BYTES) return [escapeSlice(escaper, bytes)];
    const pieces: Buffer[] = [];
    for (let at = 0; at < bytes.length; at += ESCAPE_SLICE_BYTES)
      pieces.push(escapeSlice(escaper, bytes.subarray(at, at + ESCAPE_SLICE_BYTES)));
    return pieces;
  };
}

function instantiate(): Exports | null {
  if (typeof WebAssembly === 'undefined') return null;
  let exports: Exports;
  try {
    const module = new WebAssembly.Module(Buffer.from(JSON_ESCAPE_WASM, 'base64'));
    exports = new WebAssembly.Instance(module).exports as unknown as Exports;
  } catch {
    return null;
  }
  const table = new Uint8Array(exports.memory.buffer, 0, INPUT_AT);
  for (let byte = 0; byte < 0x60; byte++) {
    if (byte >= 0x20 && byte !== 0x22 && byte !== 0x5c) continue;
    const escape = Buffer.from(JSON.stringify(String.fromCharCode(byte)).slice(1, -1), 'latin1');
    table[byte * 8] = escape.length;
    table.set(escape, byte * 8 + 1);
  }
  return exports;
}

/** One slice through the escaper: copied in, escaped, copied out (the same bytes when nothing needed it). */
function escapeSlice(escaper: Exports, bytes: Buffer): Buffer {
  const outputAt = (INPUT_AT + bytes.length + 15) & ~15;
  const needed = outputAt + bytes.length * 6 + 16;
  const { memory } = escaper;
  if (memory.buffer.byteLength < needed)
    memory.grow(Math.ceil((needed - memory.buffer.byteLength) / WASM_PAGE));
  new Uint8Array(memory.buffer, INPUT_AT, bytes.length).set(bytes);
  const written = escaper.escape(INPUT_AT, bytes.length, outputAt);
  // Every escape is longer than its byte: as long as the input, nothing was escaped.
  if (written === bytes.length) return bytes;
  const output = Buffer.allocUnsafe(written);
  output.set(new Uint8Array(memory.buffer, outputAt, written));
  return output;
}

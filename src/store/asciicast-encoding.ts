import { isUtf8 } from 'node:buffer';

/**
 * Output bytes as the body of a JSON string, exactly as decoding them as UTF-8 (U+FFFD for what is not) and
 * JSON.stringify would give, without making a string: valid UTF-8 is copied as it is and only `"`, `\` and
 * control characters are escaped (terminal output is mostly that; decoding, escaping and encoding again cost
 * the recordings' thread more CPU than reading the terminal did). Anything else takes the string path.
 * A character split at the end of a chunk is held back for the next one, as a StringDecoder does.
 */
export class JsonOutputEncoder {
  private carry: Buffer = Buffer.alloc(0);

  /** The JSON string body (without quotes) of `chunk`'s complete characters; the rest waits. */
  write(chunk: Uint8Array): Buffer {
    const bytes = this.carry.length
      ? Buffer.concat([this.carry, chunk])
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const end = completeLength(bytes);
    this.carry = Buffer.from(bytes.subarray(end));
    return encode(bytes.subarray(0, end));
  }

  /** What is held back, as a StringDecoder's end() gives it. */
  end(): Buffer {
    const rest = this.carry;
    this.carry = Buffer.alloc(0);
    return encode(rest);
  }
}

function encode(bytes: Buffer): Buffer {
  if (bytes.length === 0) return bytes;
  if (!isUtf8(bytes)) return Buffer.from(JSON.stringify(bytes.toString('utf8')).slice(1, -1), 'utf8');
  return escapeValid(bytes);
}

const HEX = '0123456789abcdef';
/** JSON.stringify's escape for each byte below 0x20, and for `"` and `\`. */
const ESCAPES: Array<Buffer | undefined> = Array.from({ length: 0x60 }, (_, byte) => {
  const short: Record<number, string> = { 0x08: '\\b', 0x09: '\\t', 0x0a: '\\n', 0x0c: '\\f', 0x0d: '\\r' };
  if (byte === 0x22) return Buffer.from('\\"');
  if (byte === 0x5c) return Buffer.from('\\\\');
  if (byte >= 0x20) return undefined;
  return Buffer.from(short[byte] ?? `\\u00${HEX[byte >> 4]}${HEX[byte & 15]}`);
});

/** Valid UTF-8 with `"`, `\` and controls escaped, in one pass into room for the worst case (6 bytes each). */
function escapeValid(bytes: Buffer): Buffer {
  const out = Buffer.allocUnsafe(bytes.length * 6);
  let at = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (byte >= 0x20 && byte !== 0x22 && byte !== 0x5c) {
      out[at++] = byte;
      continue;
    }
    const escape = ESCAPES[byte]!;
    for (let k = 0; k < escape.length; k++) out[at++] = escape[k]!;
  }
  return out.subarray(0, at);
}

/**
 * How many bytes end on a whole character: a last character that its lead byte says is longer than what
 * arrived is held back (the rule of Node's StringDecoder, so both split a stream the same way).
 */
function completeLength(bytes: Uint8Array): number {
  const length = bytes.length;
  for (let back = 1; back <= Math.min(4, length); back++) {
    const byte = bytes[length - back]!;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const need = (byte & 0xe0) === 0xc0 ? 2 : (byte & 0xf0) === 0xe0 ? 3 : (byte & 0xf8) === 0xf0 ? 4 : 1;
    return need > back ? length - back : length;
  }
  return length;
}

import { isUtf8 } from 'node:buffer';
import { jsonEscaper } from './json-escaper.js';

/**
 * Output bytes as the body of a JSON string, exactly as decoding them as UTF-8 (U+FFFD for what is not) and
 * JSON.stringify would give, without making a string: valid UTF-8 is copied as it is and only `"`, `\` and
 * control characters are escaped, by the WebAssembly escaper (json-escaper.ts; decoding, escaping and encoding
 * again cost the recordings' thread more CPU than reading the terminal did). Anything else, or a runtime
 * without WebAssembly, takes the string path.
 * A character split at the end of a chunk is held back for the next one, as a StringDecoder does.
 */
export class JsonOutputEncoder {
  private carry: Buffer;

  /** `carry`: the start of a split character another encoder held back (a thread that parked: see held). */
  constructor(carry: Uint8Array = new Uint8Array(0)) {
    this.carry = Buffer.from(carry);
  }

  /** The start of a character split at the end of the last chunk, waiting for the rest. */
  get held(): Uint8Array {
    return new Uint8Array(this.carry);
  }

  /** The JSON string body (without quotes) of `chunk`'s complete characters, in pieces; the rest waits. */
  write(chunk: Uint8Array): Buffer[] {
    const bytes = this.carry.length
      ? Buffer.concat([this.carry, chunk])
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const end = completeLength(bytes);
    this.carry = Buffer.from(bytes.subarray(end));
    return encode(bytes.subarray(0, end));
  }

  /** What is held back, as a StringDecoder's end() gives it. */
  end(): Buffer[] {
    const rest = this.carry;
    this.carry = Buffer.alloc(0);
    return encode(rest);
  }
}

/** The WebAssembly escaper, made on first use (each thread that records has its own). */
let escaper: ((bytes: Buffer) => Buffer[]) | null | undefined;

function encode(bytes: Buffer): Buffer[] {
  if (bytes.length === 0) return [];
  escaper = escaper === undefined ? jsonEscaper() : escaper;
  if (escaper && isUtf8(bytes)) return escaper(bytes);
  return [Buffer.from(JSON.stringify(bytes.toString('utf8')).slice(1, -1), 'utf8')];
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

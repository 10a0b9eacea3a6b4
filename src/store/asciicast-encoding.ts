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

/** 1 for the bytes JSON takes as they are; 0 for `"`, `\` and the controls. */
const VERBATIM = Uint8Array.from({ length: 256 }, (_, byte) =>
  byte < 0x20 || byte === 0x22 || byte === 0x5c ? 0 : 1,
);
/** A run of verbatim bytes this long is copied natively; shorter ones byte by byte (a call costs more). */
const NATIVE_COPY_BYTES = 48;
/** After an escape, this many bytes are looked at one by one before a longer run is looked for. */
const NEAR_BYTES = 8;
/** Below this, looking at four bytes at a time costs more than it saves. */
const WORDS_FROM_BYTES = 64;

/**
 * Valid UTF-8 with `"`, `\` and controls escaped. Bytes that need nothing are only looked at, four at a time
 * (a chunk without any, plain text without line ends, is returned as it is), and long runs between escapes are
 * copied natively, into room for the worst case (6 bytes each).
 */
function escapeValid(bytes: Buffer): Buffer {
  const length = bytes.length;
  const next = length < WORDS_FROM_BYTES ? nextByByte(bytes) : nextByWord(bytes);
  let i = next(0);
  if (i === length) return bytes;
  const out = Buffer.allocUnsafe(length * 6);
  let at = bytes.copy(out, 0, 0, i);
  while (i < length) {
    const escape = ESCAPES[bytes[i]!]!;
    for (let k = 0; k < escape.length; k++) out[at++] = escape[k]!;
    // The next few bytes one by one, copied as they are looked at (TUI output escapes every few bytes).
    const near = Math.min(length, ++i + NEAR_BYTES);
    while (i < near && VERBATIM[bytes[i]!] === 1) out[at++] = bytes[i++]!;
    if (i < near || i === length) continue;
    const start = i;
    i = next(start);
    if (i - start > NATIVE_COPY_BYTES) at += bytes.copy(out, at, start, i);
    else for (let k = start; k < i; k++) out[at++] = bytes[k]!;
  }
  return out.subarray(0, at);
}

/** The index of the first byte to escape in `bytes[from..to)`, or `to`: one byte at a time. */
function scanVerbatim(bytes: Buffer, from: number, to: number): number {
  let i = from;
  while (i < to && VERBATIM[bytes[i]!] === 1) i++;
  return i;
}

/** The index of the next byte to escape from `from` on, or the length: one byte at a time. */
function nextByByte(bytes: Buffer): (from: number) => number {
  return (from) => scanVerbatim(bytes, from, bytes.length);
}

/**
 * The same, faster: `"` and `\\` are found natively (`indexOf`, remembered until passed) and controls four
 * bytes at a time over the aligned middle of the chunk, four words per step: a word holds a byte below 0x20
 * if `(x - 0x20202020) & ~x & 0x80808080` is not 0 (the classic "has a byte less than" bit trick, exact as to
 * whether one does); only such a word is then looked at byte by byte.
 */
function nextByWord(bytes: Buffer): (from: number) => number {
  const length = bytes.length;
  const head = Math.min(length, (4 - (bytes.byteOffset & 3)) & 3);
  const words = new Int32Array(bytes.buffer, bytes.byteOffset + head, (length - head) >> 2);
  let quoteAt = -1;
  let slashAt = -1;
  return (from) => {
    if (quoteAt < from) quoteAt = indexOrLength(bytes, 0x22, from);
    if (slashAt < from) slashAt = indexOrLength(bytes, 0x5c, from);
    return nextControl(bytes, words, head, from, Math.min(quoteAt, slashAt));
  };
}

function indexOrLength(bytes: Buffer, byte: number, from: number): number {
  const at = bytes.indexOf(byte, from);
  return at < 0 ? bytes.length : at;
}

/** The index of the first control byte in `bytes[from..to)`, or `to`; `words` are `bytes` from `head` on. */
function nextControl(bytes: Buffer, words: Int32Array, head: number, from: number, to: number): number {
  const firstWord = from <= head ? 0 : (from - head + 3) >> 2;
  const wordsFrom = head + firstWord * 4;
  if (wordsFrom >= to) return controlByByte(bytes, from, to);
  const before = controlByByte(bytes, from, wordsFrom);
  if (before < wordsFrom) return before;
  const lastWord = Math.min(words.length, (to - head) >> 2);
  let w = firstWord;
  for (; w + 4 <= lastWord; w += 4) {
    const a = words[w]!;
    const b = words[w + 1]!;
    const c = words[w + 2]!;
    const d = words[w + 3]!;
    const flags =
      ((a - 0x20202020) & ~a) | ((b - 0x20202020) & ~b) | ((c - 0x20202020) & ~c) | ((d - 0x20202020) & ~d);
    if ((flags & 0x80808080) !== 0) break;
  }
  for (; w < lastWord; w++) {
    const x = words[w]!;
    if (((x - 0x20202020) & ~x & 0x80808080) !== 0) return controlByByte(bytes, head + w * 4, to);
  }
  return controlByByte(bytes, head + lastWord * 4, to);
}

function controlByByte(bytes: Buffer, from: number, to: number): number {
  let i = from;
  while (i < to && bytes[i]! >= 0x20) i++;
  return i;
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

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redactSecrets, redactWrappedRows } from '../../src/core/redact.js';

// Property tests for redaction, which every text read off a terminal or sent by a hook passes before the
// store, the audit log, a chat or the web: a secret anywhere in any text, wrapped at any width, never
// survives; ordinary text is never touched.

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UPPER_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const BASE64 = ALNUM + '+/';

function chars(alphabet: string, minLength: number, maxLength = minLength): fc.Arbitrary<string> {
  return fc.string({ unit: fc.constantFrom(...alphabet), minLength, maxLength });
}

const digits = (min: number, max = min) => chars('0123456789', min, max);

/** A secret as it appears in the wild, and its random part: what must never be seen again. */
interface Planted {
  text: string;
  secret: string;
}

const whole = (text: string): Planted => ({ text, secret: text });
const after = (prefix: string) => (secret: string) => ({ text: prefix + secret, secret });

/** One secret of every kind the rules know. */
const secrets: fc.Arbitrary<Planted> = fc.oneof(
  chars(ALNUM + '_-', 80, 100).map((b) => whole(`sk-ant-api03-${b}`)),
  chars(ALNUM + '_-', 40, 120).map((b) => whole(`sk-proj-${b}`)),
  chars(ALNUM, 20, 48).map((b) => whole(`sk-${b}`)),
  fc.tuple(digits(8, 10), chars(ALNUM + '_-', 35)).map(([id, b]) => whole(`${id}:${b}`)),
  fc
    .tuple(fc.constantFrom('xoxb', 'xoxp'), digits(12), digits(13), chars(ALNUM, 24))
    .map(([p, a, b, c]) => whole(`${p}-${a}-${b}-${c}`)),
  fc.tuple(chars(UPPER_DIGITS, 11), chars(ALNUM, 40)).map(([a, b]) => whole(`xapp-1-${a}-${b}`)),
  chars(ALNUM + '_-', 20).map((b) => whole(`glpat-${b}`)),
  chars(ALNUM, 36).map((b) => whole(`npm_${b}`)),
  fc
    .tuple(fc.constantFrom('sk_live_', 'rk_live_', 'sk_test_'), chars(ALNUM, 24, 99))
    .map(([p, b]) => whole(p + b)),
  fc.tuple(fc.constantFrom('ghp_', 'gho_', 'ghs_', 'ghu_'), chars(ALNUM, 36)).map(([p, b]) => whole(p + b)),
  chars(ALNUM + '_', 82).map((b) => whole(`github_pat_${b}`)),
  fc.tuple(fc.constantFrom('AKIA', 'ASIA'), chars(UPPER_DIGITS, 16)).map(([p, b]) => whole(p + b)),
  fc
    .tuple(
      chars('ABCDEFGHIJKLMNOPQRSTUVWXYZ', 2, 8),
      fc.constantFrom('KEY', 'API_KEY', 'SECRET', 'TOKEN', 'PASSWORD', 'SECRET_ACCESS_KEY'),
      chars(ALNUM, 1),
      chars(ALNUM + '!@#%^&*()+,./<>?-_=', 7, 40),
      fc.constantFrom('=', ': ', ' = '),
      fc.constantFrom('', '"', "'"),
    )
    .map(([name, kind, first, rest, sep, quote]) => ({
      text: `${name}_${kind}${sep}${quote}${first}${rest}${quote}`,
      secret: first + rest,
    })),
  fc
    .tuple(fc.constantFrom('PASSWORD=', 'password='), chars(ALNUM + '!@#%^&*', 8, 30))
    .map(([name, value]) => after(name)(value)),
  fc
    .tuple(
      fc.constantFrom('https', 'postgres', 'redis', 'amqp'),
      chars(ALNUM, 1, 12),
      chars(ALNUM + "._~!$&'()*+,;=-", 8, 30),
    )
    .map(([scheme, user, pass]) => ({ text: `${scheme}://${user}:${pass}@db.example:5432/x`, secret: pass })),
  chars(ALNUM + '._~+/-', 20, 60).map(after('Authorization: Bearer ')),
  fc.array(chars(BASE64, 64), { minLength: 1, maxLength: 6 }).map((lines) => ({
    text: `-----BEGIN OPENSSH PRIVATE KEY-----\n${lines.join('\n')}\n-----END OPENSSH PRIVATE KEY-----`,
    secret: lines.join('\n'),
  })),
);

/** What may stay of a planted secret: its text around the random part (a URL's user and host, a name). */
function visiblePart(planted: Planted): string {
  return planted.text.split(planted.secret).join('\u0000');
}

/** Every 10-character piece of the secret (within one line). */
function secretPieces(secret: string): string[] {
  const pieces: string[] = [];
  for (const line of secret.split('\n'))
    for (let at = 0; at + 10 <= line.length; at++) pieces.push(line.slice(at, at + 10));
  return pieces;
}

const anyText = fc.string({ unit: 'grapheme', maxLength: 80 });
/** What stands between a secret and the text around it. */
const delimiter = fc.constantFrom(
  ' ',
  '\n',
  '\t',
  '(',
  ')',
  '"',
  "'",
  '`',
  ',',
  ';',
  '<',
  '>',
  '[',
  ']',
  ': ',
);

function occurrences(text: string, piece: string): number {
  let count = 0;
  for (let at = text.indexOf(piece); at >= 0; at = text.indexOf(piece, at + 1)) count++;
  return count;
}

/** Splits each line into rows of `width` characters, as a terminal wraps it. */
function wrap(text: string, width: number): { rows: string[]; continues: boolean[] } {
  const rows: string[] = [];
  const continues: boolean[] = [];
  for (const line of text.split('\n')) {
    const units = [...line];
    if (units.length === 0) {
      rows.push('');
      continues.push(false);
    }
    for (let at = 0; at < units.length; at += width) {
      rows.push(units.slice(at, at + width).join(''));
      continues.push(at > 0);
    }
  }
  return { rows, continues };
}

function unwrap(rows: string[], continues: boolean[]): string {
  return rows.map((row, i) => (i > 0 && !continues[i] ? '\n' : '') + row).join('');
}

/** No 10-character piece of the secret is in `result` more often than the text around it had it anyway. */
function expectHidden(result: string, secret: string, around: string[]): void {
  for (const piece of secretPieces(secret)) {
    const expected = around.reduce((n, text) => n + occurrences(text, piece), 0);
    expect(occurrences(result, piece), `"${piece}" of ${secret} survived in ${result}`).toBeLessThanOrEqual(
      expected,
    );
  }
}

const words = fc.constantFrom(
  'the',
  'build',
  'passed',
  'src/core/redact.ts',
  'max_tokens=4096',
  'tokens:',
  '1234',
  'monkey=5',
  'key: value',
  'sk-learn',
  'task-runner',
  'commit',
  '3f9a1c2e4b5d6e7f8091a2b3c4d5e6f708192a3b',
  'https://github.com/owner/repo',
  'ssh://git@github.com/x.git',
  'Do you want to proceed?',
  '❯ 1. Yes',
  '2. No',
  'password: string',
  'token == null',
  '日本語',
  '🙂',
  '(y/n)',
  '',
);
const ordinary = fc
  .array(fc.tuple(words, fc.constantFrom(' ', '\n', ', ', ' — ')), { maxLength: 30 })
  .map((parts) => parts.map(([w, s]) => w + s).join(''));

/** Text around a secret: anything at all, or words a terminal shows (`note: PASSWORD=…`). */
const around = fc.oneof(
  anyText,
  ordinary.map((text) => text.slice(-40)),
);

describe('redaction', () => {
  it('hides a secret embedded anywhere in any text', () => {
    fc.assert(
      fc.property(around, delimiter, secrets, delimiter, around, (before, d1, planted, d2, after) => {
        const result = redactSecrets(before + d1 + planted.text + d2 + after);
        expectHidden(result, planted.secret, [before, after, visiblePart(planted)]);
        expect(result).toContain('[redacted]');
      }),
      { numRuns: 500 },
    );
  });

  it('hides it when a terminal wrapped it across rows, at any width', () => {
    fc.assert(
      fc.property(
        around,
        delimiter,
        secrets,
        delimiter,
        around,
        fc.integer({ min: 1, max: 132 }),
        (before, d1, planted, d2, after, width) => {
          const { rows, continues } = wrap(before + d1 + planted.text + d2 + after, width);
          const redacted = redactWrappedRows(rows, continues);
          expect(redacted).toHaveLength(rows.length);
          expectHidden(unwrap(redacted, continues), planted.secret, [before, after, visiblePart(planted)]);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('leaves ordinary text untouched, wrapped or not', () => {
    fc.assert(
      fc.property(ordinary, fc.integer({ min: 1, max: 132 }), (text, width) => {
        expect(redactSecrets(text)).toBe(text);
        const { rows, continues } = wrap(text, width);
        expect(redactWrappedRows(rows, continues)).toEqual(rows);
      }),
      { numRuns: 300 },
    );
  });

  it('is idempotent on anything', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        const once = redactSecrets(text);
        expect(redactSecrets(once)).toBe(once);
      }),
      { numRuns: 500 },
    );
  });
});

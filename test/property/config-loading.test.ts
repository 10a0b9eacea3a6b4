import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ConfigError, loadConfig, parseConfig } from '../../src/config/load.js';

// Property tests for config loading: whatever agent-bridge.yaml holds (any text, any YAML, a config almost
// right), loading it gives a config or one ConfigError line naming the file and the line, never a stack
// trace or another kind of error.

const FILE = '/home/ada/agent-bridge.yaml';
const WHERE = /^\/home\/ada\/agent-bridge\.yaml:[1-9]\d*: /;

/** Loads, and checks that a failure is one ConfigError line with file:line. */
function expectConfigOrOneLine(text: string, env: NodeJS.ProcessEnv = {}): void {
  try {
    parseConfig(text, FILE, env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message, message).toMatch(WHERE);
    expect(message, message).not.toMatch(/[\r\n]/);
    expect(message.length).toBeLessThanOrEqual(400);
  }
}

const KEYS = [
  'repos',
  'telegram',
  'discord',
  'slack',
  'token',
  'allowed_users',
  'chat_ids',
  'channel_ids',
  'dir',
  'agent',
  'model',
  'permission',
  'threads',
  'rate_limit',
  'prompt_ttl',
  'permission',
  'id',
  '__proto__',
  'constructor',
  'a\nb',
  'x: y',
  '',
];

/** YAML-shaped values: maps with config-like keys, lists, scalars of every type. */
const values: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string({ maxLength: 20 }),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.constantFrom('${HOME}', '${MISSING_VAR}', '90s', '10m', 'claude', 'worktree', '223456789012345678'),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom(...KEYS), tie('value'), { maxKeys: 4 }),
  ),
})).value;

const yamlTexts = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 200 }),
  values.map((value) => stringify(value)),
  fc
    .tuple(
      values.map((value) => stringify({ repos: [{ dir: '/w', agent: 'claude', extra: value }] })),
      fc.string({ maxLength: 10 }),
      fc.nat(200),
    )
    .map(([text, junk, at]) => text.slice(0, at) + junk + text.slice(at)),
  fc.constantFrom(
    'a: &x [*x]\n',
    'a: !!binary AAAA\n',
    '? [a, b]\n: c\n',
    'a: 1\na: 2\n',
    '%YAML 1.1\n---\nrepos: []\n',
    '--- a\n--- b\n',
    'x: &a [1]\ny: *a\nz: *b\n',
    'repos:\n  - dir: /w\n    agent: nope\n',
    'telegram:\n  token: ${TOKEN_NOT_SET}\n',
    '"a\\nb": 1\n',
  ),
);

describe('loading agent-bridge.yaml', () => {
  it('gives a config or one ConfigError line with file:line, whatever the file holds', () => {
    fc.assert(
      fc.property(yamlTexts, (text) => expectConfigOrOneLine(text)),
      { numRuns: 2000 },
    );
  });

  it('survives YAML built to exhaust a parser (alias bombs)', () => {
    const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 0; i < 9; i++) {
      const name = String.fromCharCode(98 + i);
      const prev = String.fromCharCode(97 + i);
      bomb.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    bomb.push('repos: []');
    expectConfigOrOneLine(bomb.join('\n') + '\n');
  });

  const dir = mkdtempSync(path.join(tmpdir(), 'ab-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('says in one line what is wrong with a file it cannot read', () => {
    for (const file of [dir, path.join(dir, 'gone.yaml')]) {
      expect(() => loadConfig(file)).toThrow(ConfigError);
      try {
        loadConfig(file);
      } catch (error) {
        expect((error as Error).message).toMatch(
          new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `),
        );
        expect((error as Error).message).not.toMatch(/\n/);
      }
    }
    const binary = path.join(dir, 'binary.yaml');
    writeFileSync(binary, Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x1b, 0x5b, 0x32, 0x4a]));
    try {
      loadConfig(binary);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
    }
  });
});

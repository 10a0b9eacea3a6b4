import { describe, expect, it } from 'vitest';
import {
  isSecretName,
  redactDeep,
  redactSecrets,
  redactWrappedRows,
  StreamRedactor,
} from '../../src/core/redact.js';

// The rule set, one row per kind of secret: the text as it appears, and what must be left of it.

const anthropic = 'sk-ant-api03-' + 'Ab3_x-Z9'.repeat(12);
const telegram = '8123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1';

const SECRETS: Array<[string, string, string]> = [
  ['Anthropic key', `key ${anthropic} end`, 'key [redacted] end'],
  ['OpenAI project key', 'sk-proj-Zq81_kLm0PqRsTuVwXyZ-0123456789abc', '[redacted]'],
  ['OpenAI key', 'OPENAI sk-0123456789abcdefghijKLMNOP', 'OPENAI [redacted]'],
  ['Telegram bot token', `token ${telegram}.`, 'token [redacted].'],
  [
    'Telegram token in a URL',
    `https://api.telegram.org/bot${telegram}/getMe`,
    'https://api.telegram.org/bot[redacted]/getMe',
  ],
  ['Slack bot token', 'xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx', '[redacted]'],
  ['Slack user token', 'xoxp-123456789012-abcdefABCDEF', '[redacted]'],
  ['Slack app token', 'xapp-1-A0123456789-0123456789012-abcdef0123', '[redacted]'],
  ['GitLab token', 'glpat-AbCdEfGhIj0123456789', '[redacted]'],
  ['npm token', 'npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789', '[redacted]'],
  ['Stripe live key', 'sk_live_51HxAbCdEfGhIjKlMnOpQr', '[redacted]'],
  ['Stripe restricted key', 'rk_live_51HxAbCdEfGhIjKlMnOpQr', '[redacted]'],
  ['GitHub classic token', 'ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789', '[redacted]'],
  ['GitHub OAuth token', 'gho_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789', '[redacted]'],
  ['GitHub app token', 'ghs_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789', '[redacted]'],
  ['GitHub fine-grained token', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz', '[redacted]'],
  ['AWS access key id', 'id AKIAIOSFODNN7EXAMPLE,', 'id [redacted],'],
  ['AWS session key id', 'ASIAY34FZKBOKMUTVV7A', '[redacted]'],
  [
    'AWS secret key (env)',
    'AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    'AWS_SECRET_ACCESS_KEY=[redacted]',
  ],
  [
    'AWS secret key (config file)',
    'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    'aws_secret_access_key = [redacted]',
  ],
  [
    'AWS secret key (JSON)',
    '"SecretAccessKey": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",',
    '"SecretAccessKey": "[redacted]",',
  ],
  ['NAME_KEY=', 'export OPENAI_API_KEY=abc123def', 'export OPENAI_API_KEY=[redacted]'],
  [
    '*_SECRET=',
    'SLACK_SIGNING_SECRET="8f742231b10e8888abcd99yyyzzz85a5"',
    'SLACK_SIGNING_SECRET="[redacted]"',
  ],
  ['*_TOKEN=', "TELEGRAM_BOT_TOKEN='12:ab'", "TELEGRAM_BOT_TOKEN='[redacted]'"],
  ['PASSWORD=', 'PASSWORD=hunter2 make deploy', 'PASSWORD=[redacted] make deploy'],
  ['password: (YAML)', '  db_password: correct-horse', '  db_password: [redacted]'],
  ['camelCase key', 'clientSecret: s3cr3t', 'clientSecret: [redacted]'],
  [
    'URL with user:pass@',
    'postgres://admin:s3cr3t!@db.local:5432/app',
    'postgres://admin:[redacted]@db.local:5432/app',
  ],
  ['URL with :pass@', 'redis://:hunter2@localhost:6379', 'redis://:[redacted]@localhost:6379'],
  ['Bearer header', 'Authorization: Bearer abc.def-ghi_123', 'Authorization: Bearer [redacted]'],
  ['Basic header', 'Authorization: Basic dXNlcjpwYXNz', 'Authorization: Basic [redacted]'],
  ['password option', 'mysql --password=hunter2 -u root', 'mysql --password=[redacted] -u root'],
  [
    'token option',
    'gh auth login --with-token --token abc123',
    'gh auth login --with-token --token [redacted]',
  ],
  [
    'private key block',
    'a\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU=\n-----END OPENSSH PRIVATE KEY-----\nz',
    'a\n[redacted]\nz',
  ],
  ['unterminated private key block', 'x -----BEGIN RSA PRIVATE KEY-----\nMIIEow', 'x [redacted]'],
  ['base64 key body alone', `  ${'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC'.repeat(2)}`, '  [redacted]'],
  [
    'JWT',
    'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
    '[redacted]',
  ],
  ['Google API key', 'AIzaSyA-0123456789abcdefghijklmnopqrstu', '[redacted]'],
];

const ORDINARY = [
  'touch proof.txt && git commit -m "fix: the task-runner handles desk-organizer ids"',
  'commit 3f9a1c2e4b5d6e7f8091a2b3c4d5e6f708192a3b',
  'max_tokens=4096 tokens: 1234 monkey=5 key: value',
  'const password: string = form.get(name); // typed',
  'https://github.com/owner/repo.git and ssh://git@github.com:22/x',
  'Tests  12 passed (12)  Duration 1.2s',
  'Do you want to proceed? ❯ 1. Yes  2. No',
  'if (token == null) return; a == b; Token::new()',
  'sk-learn is not a key; ask-me-anything-later',
  'Password: ',
  'x'.repeat(300),
  '='.repeat(80),
  '[redacted]',
];

describe('the redaction rules', () => {
  it.each(SECRETS)('hide %s', (_name, text, expected) => {
    expect(redactSecrets(text)).toBe(expected);
  });

  it.each(ORDINARY)('leave ordinary text alone: %s', (text) => {
    expect(redactSecrets(text)).toBe(text);
  });

  it('are idempotent', () => {
    for (const [, text] of SECRETS) expect(redactSecrets(redactSecrets(text))).toBe(redactSecrets(text));
  });

  it.each([
    ['DB_PASSWORD', true],
    ['apiKey', true],
    ['SecretAccessKey', true],
    ['x-api-key', true],
    ['token', true],
    ['auth_token', true],
    ['key', false],
    ['monkey', false],
    ['max_tokens', false],
    ['token_count', false],
    ['author', false],
  ])('name %s holds a secret: %s', (name, expected) => {
    expect(isSecretName(name)).toBe(expected);
  });

  it('redact every string of a nested value', () => {
    expect(redactDeep({ a: [{ b: `x ${anthropic}` }], n: 3 })).toEqual({ a: [{ b: 'x [redacted]' }], n: 3 });
  });
});

describe('rows a terminal wrapped', () => {
  it('are redacted as one line: the secret is hidden where it starts, its rest dropped', () => {
    const line = `export KEY ${anthropic} done`;
    const rows = [line.slice(0, 40), line.slice(40, 80), line.slice(80)];
    const redacted = redactWrappedRows(rows, [false, true, true]);
    expect(redacted.join('')).toBe('export KEY [redacted] done');
    expect(redacted).toHaveLength(3);
  });

  it('keep rows that are separate lines apart', () => {
    expect(redactWrappedRows(['sk-ant-api03-', 'abcdefghijklmnopqrstuvwxyz'], [false, false])).toEqual([
      'sk-ant-api03-',
      'abcdefghijklmnopqrstuvwxyz',
    ]);
  });
});

describe('a stream of finished lines', () => {
  it('hides a private key block printed over several reads', () => {
    const redactor = new StreamRedactor();
    expect(redactor.redact('start\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow')).toBe('start\n[redacted]');
    expect(redactor.redact('abc')).toBe('[redacted]');
    expect(redactor.redact('def==\n-----END RSA PRIVATE KEY-----\nafter')).toBe('[redacted]\nafter');
    expect(redactor.redact('plain')).toBe('plain');
  });
});

import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import {
  appendRepo,
  defaultRepoName,
  expandDir,
  keyLines,
  parseChannelSpec,
  parseChannelSpecs,
  RepoSpecError,
} from '../../src/config/repos.js';

const COMMENTED = `# my agent-bridge
channels:
  telegram:
    token: \${TELEGRAM_BOT_TOKEN} # from @BotFather
    allowed_users: [123456789] # who may answer

defaults:
  output_threshold: 900 # smaller

# the repositories
repos:
  # the API, first
  - name: api
    dir: /srv/api # production checkout
    channels: { telegram: [123456789] }
`;

const parse = (text: string) => parseConfig(text, 'agent-bridge.yaml', { TELEGRAM_BOT_TOKEN: '1:abc' });

describe('appendRepo', () => {
  it('adds two repos keeping every comment, and the result still validates', () => {
    const once = appendRepo(COMMENTED, {
      name: 'web',
      dir: '/srv/web',
      agent: 'codex',
      channels: { telegram: [123456789], discord: [1122334455] },
    });
    const twice = appendRepo(once, {
      name: 'docs',
      dir: '/srv/docs',
      agent: 'claude',
      driver: 'terminal',
      args: ['--model', 'sonnet'],
      channels: { slack: ['C0123ABCD'] },
    });
    for (const comment of [
      '# my agent-bridge',
      'token: ${TELEGRAM_BOT_TOKEN} # from @BotFather',
      'allowed_users: [123456789] # who may answer',
      'output_threshold: 900 # smaller',
      '# the repositories',
      '# the API, first',
      'dir: /srv/api # production checkout',
    ])
      expect(twice).toContain(comment);
    // What was there is untouched, in its place; the new entries follow it.
    expect(twice.startsWith(COMMENTED.slice(0, COMMENTED.indexOf('repos:')))).toBe(true);
    expect(twice).toContain('      telegram: [123456789]\n      discord: [1122334455]\n');
    expect(twice).toContain('    args: [--model, sonnet]\n');
    const config = parse(twice);
    expect(config.repos).toEqual([
      { name: 'api', dir: '/srv/api', channels: { telegram: [123456789] } },
      {
        name: 'web',
        dir: '/srv/web',
        agent: 'codex',
        channels: { telegram: [123456789], discord: [1122334455] },
      },
      {
        name: 'docs',
        dir: '/srv/docs',
        agent: 'claude',
        driver: 'terminal',
        args: ['--model', 'sonnet'],
        channels: { slack: ['C0123ABCD'] },
      },
    ]);
    expect(config.defaults.output_threshold).toBe(900);
  });

  it('creates repos: in a file without it, and in an empty one', () => {
    const entry = { name: 'a', dir: '/a', agent: 'claude', channels: { telegram: [1] } };
    for (const text of ['', '# just a comment\n', '{}\n', 'repos:\n', 'repos: []\n']) {
      const result = appendRepo(text, entry);
      expect(parse(result).repos).toEqual([entry]);
      expect(result).toMatch(/^repos:\n {2}- name: a\n/m);
    }
    expect(appendRepo('# just a comment\n', entry)).toContain('# just a comment');
  });

  it('keeps padded flow lists padded when the file writes them so', () => {
    const result = appendRepo('allowed: [ 1 ]\n', { name: 'a', dir: '/a', channels: { web: ['x'] } });
    expect(result).toContain('web: [ x ]');
  });

  it('refuses a repos: that is not a list, and YAML that does not parse', () => {
    const entry = { name: 'a', dir: '/a' };
    expect(() => appendRepo('repos: {}\n', entry)).toThrow(RepoSpecError);
    expect(() => appendRepo('repos: [1, 2\n', entry)).toThrow(/not valid YAML/);
  });
});

describe('--channel values', () => {
  it.each([
    ['telegram:123456789', { channel: 'telegram', id: 123456789 }],
    ['telegram:-1001234567890', { channel: 'telegram', id: -1001234567890 }],
    ['discord:1122334455', { channel: 'discord', id: 1122334455 }],
    // Beyond 2^53 a number would be rounded: a real Discord snowflake stays a string.
    ['discord:1234567890123456789', { channel: 'discord', id: '1234567890123456789' }],
    ['slack:C0123ABCD', { channel: 'slack', id: 'C0123ABCD' }],
    ['slack:G0PRIVATE1', { channel: 'slack', id: 'G0PRIVATE1' }],
    ['terminal:main', { channel: 'terminal', id: 'main' }],
    // A bare id is a Discord channel (seed 000).
    ['1122334455', { channel: 'discord', id: 1122334455 }],
    ['223456789012345678', { channel: 'discord', id: '223456789012345678' }],
  ])('%s', (spec, expected) => expect(parseChannelSpec(spec)).toEqual(expected));

  it.each([
    ['pigeon:1', /unknown channel "pigeon"; choose from terminal, telegram, discord, slack, web/],
    ['telegram', /expected <channel>:<id>/],
    ['telegram:', /expected <channel>:<id>/],
    ['telegram:me', /a telegram id is a number/],
    ['discord:-5', /a discord id is a number/],
    ['terminal:a b', /no spaces/],
    ['slack:a b', /a Slack channel id looks like C0123ABCD/],
    ['slack:#general', /a Slack channel id looks like C0123ABCD/],
    ['slack:U0123ABCD', /a Slack channel id looks like C0123ABCD/],
    ['12', /unknown channel "12"/],
  ])('refuses %s', (spec, message) => expect(() => parseChannelSpec(spec)).toThrow(message));

  it('groups ids per channel, without repeats', () => {
    expect(parseChannelSpecs(['telegram:1', 'discord:2', 'telegram:3', 'telegram:1'])).toEqual({
      telegram: [1, 3],
      discord: [2],
    });
  });
});

describe('repo names and folders', () => {
  it('names a repo after its folder, as one word', () => {
    expect(defaultRepoName('/src/api')).toBe('api');
    expect(defaultRepoName('/src/My Project')).toBe('My-Project');
    expect(defaultRepoName('/src/.hidden')).toBe('hidden');
  });

  it('expands ~ and resolves relative folders', () => {
    expect(expandDir('~', '/cwd', '/home/me')).toBe('/home/me');
    expect(expandDir('~/src/api', '/cwd', '/home/me')).toBe('/home/me/src/api');
    expect(expandDir('api', '/cwd', '/home/me')).toBe(path.resolve('/cwd/api'));
    expect(expandDir('/abs', '/cwd', '/home/me')).toBe('/abs');
  });

  it('finds the line of a repo key', () => {
    const lineOf = keyLines(COMMENTED);
    expect(lineOf(['repos', 0, 'name'])).toBe(13);
    expect(lineOf(['repos', 0, 'dir'])).toBe(14);
    expect(lineOf(['repos', 0, 'agent'])).toBe(13);
    expect(lineOf(['defaults', 'agent'])).toBe(7);
  });
});

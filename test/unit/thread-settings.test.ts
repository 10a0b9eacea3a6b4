import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import type { RepoConfig, ThreadEntry } from '../../src/config/schema.js';
import { appendThreadEntry, findThreadEntry, threadSettings } from '../../src/config/thread-settings.js';

const project: RepoConfig = {
  name: 'app',
  dir: '/src/app',
  model: 'opus',
  permission: 'default',
  isolation: 'none',
};
const defaults = { model: 'sonnet', permission: 'acceptEdits' as const, isolation: 'worktree' as const };

describe('thread settings: thread entry → project thread defaults → project', () => {
  it.each<[string, RepoConfig, ThreadEntry | undefined, Record<string, unknown>]>([
    [
      'project only',
      project,
      undefined,
      { model: 'opus', permission: 'default', isolation: 'none', dir: '/src/app' },
    ],
    [
      'thread defaults win over the project',
      { ...project, thread: defaults },
      undefined,
      { model: 'sonnet', permission: 'acceptEdits', isolation: 'worktree', dir: '/src/app' },
    ],
    [
      'the thread entry wins over both',
      { ...project, thread: defaults },
      { id: '9', model: 'haiku', permission: 'bypassPermissions', isolation: 'none' },
      { model: 'haiku', permission: 'bypassPermissions', isolation: 'none' },
    ],
    [
      'unset entry fields fall through layer by layer',
      { ...project, thread: { model: 'sonnet' } },
      { id: '9', isolation: 'worktree' },
      { model: 'sonnet', permission: 'default', isolation: 'worktree' },
    ],
    [
      'the folder merges in two layers (thread defaults have none)',
      { ...project, thread: defaults },
      { id: '9', dir: '/src/app/pkg' },
      { dir: '/src/app/pkg' },
    ],
    [
      'nothing set anywhere: no model, no mode, no isolation',
      { name: 'x', dir: '/x' },
      undefined,
      { isolation: 'none', dir: '/x', startup: false },
    ],
    [
      'startup comes from the thread entry only',
      { ...project, startup: true },
      { id: '9', startup: true },
      { startup: true },
    ],
  ])('%s', (_, repo, entry, expected) => {
    expect(threadSettings(repo, entry)).toMatchObject(expected);
  });

  it('an entry without a channel matches any channel; one with a channel only its own', () => {
    const repo: RepoConfig = { ...project, threads: [{ id: '1' }, { id: '2', channel: 'telegram' }] };
    expect(findThreadEntry(repo, 'discord', '1')?.id).toBe('1');
    expect(findThreadEntry(repo, 'discord', '2')).toBeUndefined();
    expect(findThreadEntry(repo, 'telegram', '2')?.id).toBe('2');
  });

  it('writes a new thread under its repository, keeping comments', () => {
    const text = '# mine\nrepos:\n  - name: app # main\n    dir: /src/app\n  - name: other\n    dir: /o\n';
    const once = appendThreadEntry(text, 'app', { id: '123', channel: 'discord', chat: '55' });
    const twice = appendThreadEntry(once, 'app', { id: '456' });
    expect(twice).toContain('# mine');
    expect(twice).toContain('# main');
    expect(twice).toMatch(
      /name: app # main\n {4}dir: \/src\/app\n {4}threads:\n {6}- id: "123"\n {8}channel: discord\n {8}chat: "55"\n {6}- id: "456"\n {2}- name: other/,
    );
    expect(() => appendThreadEntry(text, 'nope', { id: '1' })).toThrow(/no repository named nope/);
  });

  it('leaves the rest of the file as it is, byte for byte: flow lists, comments, quotes, blank lines', () => {
    const text = [
      '# agent-bridge configuration',
      'channels:',
      '  telegram:',
      '    token: ${TELEGRAM_BOT_TOKEN} # from @BotFather',
      '    allowed_users: [4242]',
      '    chat_ids: [4242, -1001234567890]',
      '',
      'repos:',
      '  - name: api',
      "    dir: '~/src/api'",
      '    args: [bash, /tmp/x.sh]   # the agent',
      '    channels: { telegram: [4242] }',
      '',
      '    # the notes',
      '  - name: notes',
      '    dir: ~/src/notes',
      '    command: "opencode acp"',
      '    channels:',
      '      telegram: [4242]',
      '    threads:',
      '      - id: 1',
      '        chat: 4242 # the group',
      '      # more threads come here',
      `    model: ${'a-very-long-model-name-'.repeat(5)}`,
      'defaults: { agent: claude, rate_limit: { user_burst: 3 } }',
      '',
    ].join('\n');
    const added = [
      '    threads:',
      '      - id: "123"',
      '        channel: telegram',
      '        chat: 4242',
      '        name: fix the bug',
    ];
    const once = appendThreadEntry(text, 'api', {
      id: '123',
      channel: 'telegram',
      chat: 4242,
      name: 'fix the bug',
    });
    expect(once).toBe(
      text.replace('    channels: { telegram: [4242] }\n', (line) => `${line}${added.join('\n')}\n`),
    );

    const twice = appendThreadEntry(once, 'notes', {
      id: '1712345678.123456',
      channel: 'slack',
      chat: 'C0123ABCD',
    });
    expect(twice).toBe(
      once.replace(
        '        chat: 4242 # the group\n',
        (line) => `${line}      - id: "1712345678.123456"\n        channel: slack\n        chat: C0123ABCD\n`,
      ),
    );
    expect(parseDocument(twice).toJS()).toMatchObject({
      repos: [
        { name: 'api', threads: [{ id: '123', channel: 'telegram', chat: 4242, name: 'fix the bug' }] },
        {
          name: 'notes',
          threads: [
            { id: 1, chat: 4242 },
            { id: '1712345678.123456', channel: 'slack', chat: 'C0123ABCD' },
          ],
          model: 'a-very-long-model-name-'.repeat(5),
        },
      ],
    });
  });

  it('a list written under its key, Windows line ends, a repository in flow style: each kept as it is', () => {
    expect(appendThreadEntry('repos:\n- name: x\n  dir: /x\n', 'x', { id: '5' })).toBe(
      'repos:\n- name: x\n  dir: /x\n  threads:\n  - id: "5"\n',
    );
    expect(appendThreadEntry('repos:\r\n  - name: x\r\n    dir: /x # here', 'x', { id: '5' })).toBe(
      'repos:\r\n  - name: x\r\n    dir: /x # here\r\n    threads:\r\n      - id: "5"\r\n',
    );
    expect(appendThreadEntry('repos: [{name: x, dir: /x, args: [a]}]\n', 'x', { id: '5' })).toBe(
      'repos: [{name: x, dir: /x, args: [a], threads: [{id: "5"}]}]\n',
    );
  });
});

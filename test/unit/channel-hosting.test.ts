import { afterEach, describe, expect, it } from 'vitest';
import { allowlists, remoteChannel } from '../../src/cli/channel-hosting.js';
import { parseConfig } from '../../src/config/load.js';
import { systemClock } from '../../src/core/clock.js';

const log = () => undefined;
const discordConfig = (token: string) =>
  parseConfig(
    `channels:\n  discord:\n${token}    allowed_users: ["123456789012345678"]\n    channel_ids: ["223456789012345678"]\nrepos:\n  - name: a\n    dir: /tmp\n    channels: { discord: ["323456789012345678"] }\n`,
    'agent-bridge.yaml',
  );

afterEach(() => {
  delete process.env.DISCORD_BOT_TOKEN;
  delete process.env.SLACK_BOT_TOKEN;
  delete process.env.SLACK_APP_TOKEN;
});

const slackConfig = (lines: string) =>
  parseConfig(
    `channels:\n  slack:\n${lines}    allowed_users: [U0OWNER001, U0OTHER002]\nrepos:\n  - name: a\n    dir: /tmp\n    channels: { slack: [C0PROJ0001] }\n`,
    'agent-bridge.yaml',
  );

describe('configured remote channels', () => {
  it('Discord: the token from the config, else from DISCORD_BOT_TOKEN, else a one-line error', () => {
    const withToken = remoteChannel('discord', discordConfig('    token: abc.def.ghi\n'), systemClock, log);
    expect(withToken?.channel.name).toBe('discord');
    expect(withToken?.chats).toEqual([{ chatId: '223456789012345678' }]);
    expect(() => remoteChannel('discord', discordConfig(''), systemClock, log)).toThrow(
      /channels\.discord\.token is missing: set it, or the DISCORD_BOT_TOKEN environment variable/,
    );
    process.env.DISCORD_BOT_TOKEN = 'from.the.env';
    expect(remoteChannel('discord', discordConfig(''), systemClock, log)?.allowedUsers).toEqual(
      new Set(['123456789012345678']),
    );
  });

  it("Discord without channel ids: prompts go to each allowed user's DMs with the bot", () => {
    const config = parseConfig(
      'channels:\n  discord:\n    token: a.b.c\n    allowed_users: ["123456789012345678", "223456789012345678"]\n',
      'c.yaml',
    );
    expect(remoteChannel('discord', config, systemClock, log)?.chats).toEqual([
      { chatId: 'dm:123456789012345678' },
      { chatId: 'dm:223456789012345678' },
    ]);
  });

  it('an unquoted Discord id is refused with what to do, since YAML has already rounded it', () => {
    expect(() =>
      parseConfig(
        'repos:\n  - name: a\n    dir: /tmp\n    channels: { discord: [223456789012345678] }\n',
        'c.yaml',
      ),
    ).toThrow(/c\.yaml:4: .*put long ids in quotes/);
  });

  it('allowlists per channel, and nothing for channels not configured', () => {
    const lists = allowlists(discordConfig('    token: abc.def.ghi\n'));
    expect([...lists.keys()]).toEqual(['discord']);
    expect(remoteChannel('telegram', discordConfig('    token: abc.def.ghi\n'), systemClock, log)).toBeNull();
  });

  it('Slack: both tokens from the config or SLACK_BOT_TOKEN / SLACK_APP_TOKEN; DMs without channel ids; the App Home panel', () => {
    const tokens = '    token: xoxb-1-2-abc\n    app_token: xapp-1-A1-2-abc\n';
    const slack = remoteChannel('slack', slackConfig(tokens), systemClock, log);
    expect(slack?.channel.name).toBe('slack');
    expect(slack?.chats).toEqual([{ chatId: 'dm:U0OWNER001' }, { chatId: 'dm:U0OTHER002' }]);
    expect(slack?.allowedUsers).toEqual(new Set(['U0OWNER001', 'U0OTHER002']));
    expect(slack?.panelChat).toEqual({ chatId: 'app-home' });
    const withChannels = remoteChannel(
      'slack',
      slackConfig(`${tokens}    channel_ids: [C0PROMPTS1]\n`),
      systemClock,
      log,
    );
    expect(withChannels?.chats).toEqual([{ chatId: 'C0PROMPTS1' }]);
    expect(() => remoteChannel('slack', slackConfig(''), systemClock, log)).toThrow(
      /channels\.slack\.token is missing: set it, or the SLACK_BOT_TOKEN environment variable/,
    );
    process.env.SLACK_BOT_TOKEN = 'xoxb-from-env';
    expect(() => remoteChannel('slack', slackConfig(''), systemClock, log)).toThrow(
      /channels\.slack\.app_token is missing: set it, or the SLACK_APP_TOKEN environment variable/,
    );
    process.env.SLACK_APP_TOKEN = 'xapp-from-env';
    expect(remoteChannel('slack', slackConfig(''), systemClock, log)?.channel.name).toBe('slack');
    expect([...allowlists(slackConfig(tokens)).entries()]).toEqual([
      ['slack', new Set(['U0OWNER001', 'U0OTHER002'])],
    ]);
  });

  it('Slack settings are checked: token kinds, member and channel ids, a thread id that YAML would round', () => {
    const bad = (lines: string) => () => parseConfig(`channels:\n  slack:\n${lines}`, 'c.yaml');
    expect(bad('    token: xoxp-user-token\n    allowed_users: [U0OWNER001]\n')).toThrow(
      /c\.yaml:3: channels\.slack\.token: the bot token \(xoxb-…/,
    );
    expect(bad('    app_token: xoxb-1\n    allowed_users: [U0OWNER001]\n')).toThrow(
      /channels\.slack\.app_token: the app-level token \(xapp-…/,
    );
    expect(bad('    allowed_users: [owner]\n')).toThrow(
      /channels\.slack\.allowed_users\.0: a Slack member id \(U…/,
    );
    expect(bad('    allowed_users: [U0OWNER001]\n    channel_ids: ["#general"]\n')).toThrow(
      /a Slack channel id \(C…/,
    );
    expect(bad('    allowed_users: []\n')).toThrow(/at least one Slack member id/);
    expect(bad('    allowed_users: [U0OWNER001]\n    webhook: x\n')).toThrow(/unknown key "webhook"/);
    const thread = (id: string) =>
      parseConfig(
        `repos:\n  - name: a\n    dir: /tmp\n    threads: [{ id: ${id}, channel: slack, chat: C0PROJ0001 }]\n`,
        'c.yaml',
      );
    expect(thread('"1712345678.123456"').repos[0]!.threads![0]!.id).toBe('1712345678.123456');
    expect(() => thread('1712345678.123456')).toThrow(
      /c\.yaml:4: repos\.0\.threads\.0\.id: a thread id: .*in quotes/,
    );
  });
});

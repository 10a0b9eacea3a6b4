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
});

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
});

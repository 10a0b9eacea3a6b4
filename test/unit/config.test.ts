import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configCheckCommand } from '../../src/cli/commands/config.js';
import { editConfigFile } from '../../src/config/edit.js';
import { ConfigError, findConfigFile, loadConfig, parseConfig } from '../../src/config/load.js';
import { parseChannelSpec } from '../../src/config/repos.js';
import { durationMs } from '../../src/config/schema.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ab-config-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const parse = (text: string, env: NodeJS.ProcessEnv = {}) => parseConfig(text, 'agent-bridge.yaml', env);

describe('configuration', () => {
  it('fills the defaults of the seeds', () => {
    const config = parse('{}');
    expect(config.defaults).toMatchObject({
      output_threshold: 1500,
      idle_timeout: '10m',
      resume: true,
      rate_limit: { enabled: true, user_rate: 0.5, user_burst: 3, channel_rate: 2, channel_burst: 10 },
    });
    expect(config.repos).toEqual([]);
  });

  it('expands ${VAR} from the environment', () => {
    const config = parse('channels:\n  telegram:\n    token: ${TG_TOKEN}\n    allowed_users: [42]\n', {
      TG_TOKEN: '1:abc',
    });
    expect(config.channels.telegram).toEqual({ token: '1:abc', allowed_users: [42] });
  });

  it.each([
    [
      'channels:\n  telegram:\n    token: ${MISSING}\n    allowed_users: [1]\n',
      'agent-bridge.yaml:3: channels.telegram.token: environment variable MISSING is not set',
    ],
    [
      'channels:\n  telegram:\n    tokn: abc\n    allowed_users: [1]\n',
      'agent-bridge.yaml:3: channels.telegram: unknown key "tokn" (the keys here: token, allowed_users, chat_ids, api_root)',
    ],
    // A channel agent-bridge does not have is refused, not listed as configured.
    [
      'channels:\n  whatsapp:\n    token: abc\n',
      'agent-bridge.yaml:2: channels: unknown key "whatsapp" (the keys here: telegram, discord, slack)',
    ],
    [
      'repos:\n  - name: a\n    folder: /x\n    agnet: claude\n',
      'agent-bridge.yaml:3: repos.0: unknown keys "folder", "agnet" (the keys here: name, dir, agent, driver, command, args, channels, model, permission, isolation, startup, thread, threads)',
    ],
    [
      'bogus: 1\n',
      'agent-bridge.yaml:1: (top level): unknown key "bogus" (the keys here: defaults, channels, repos, cluster)',
    ],
    [
      'channels:\n  telegram:\n    token: abc\n    allowed_users: []\n',
      'agent-bridge.yaml:4: channels.telegram.allowed_users: at least one Telegram user id',
    ],
    [
      'defaults:\n  idle_timeout: soon\n',
      'agent-bridge.yaml:2: defaults.idle_timeout: a duration such as 30s, 10m or 2h',
    ],
    [
      'defaults:\n  output_threshold: "big"\n',
      'agent-bridge.yaml:2: defaults.output_threshold: expected number, found "big"',
    ],
    [
      'repos:\n  - name: a\n    dir: /x\n  - name: b\n',
      'agent-bridge.yaml:4: repos.1.dir: missing: expected string',
    ],
    // A repository's chat ids: the rule add-repo --channel applies, at the id's own line.
    [
      'repos:\n  - name: a\n    dir: /x\n    channels: { telegram: [abc, "@chan"], slack: [lowercase] }\n',
      'agent-bridge.yaml:4: repos.0.channels.telegram.0: a telegram id is a number, e.g. 123456789',
    ],
    [
      'repos:\n  - name: a\n    dir: /x\n    channels:\n      telegram: [-1001234567890]\n      slack:\n        - C0123ABCD\n        - lowercase\n',
      'agent-bridge.yaml:8: repos.0.channels.slack.1: a Slack channel id looks like C0123ABCD (channel details → Copy channel ID), e.g. C0123ABCD',
    ],
    [
      "repos:\n  - name: a\n    dir: /x\n    channels:\n      discord: ['223456789012345678', -5]\n",
      'agent-bridge.yaml:5: repos.0.channels.discord.1: a discord id is a number, e.g. 1122334455',
    ],
    [
      "repos:\n  - name: a\n    dir: /x\n    channels:\n      discord: ['#general']\n",
      'agent-bridge.yaml:5: repos.0.channels.discord.0: a discord id is a number, e.g. 1122334455',
    ],
    [
      "repos:\n  - name: a\n    dir: /x\n    channels:\n      terminal: ['a b']\n",
      'agent-bridge.yaml:5: repos.0.channels.terminal.0: an id has no spaces',
    ],
    ['defaults: [1, 2', 'agent-bridge.yaml:1: not valid YAML'],
    // A key indented too far: the line to fix is the one out of place, not the line above it.
    [
      'channels:\n  telegram:\n    token: abc\n     allowed_users: [1]\n',
      'agent-bridge.yaml:4: not valid YAML: Implicit keys need to be on a single line (check the indentation of this line)',
    ],
    [
      'repos:\n  - name: a\n    dir: /tmp\n   agent: claude\n',
      'agent-bridge.yaml:4: not valid YAML: Sequence item without - indicator (check the indentation of this line)',
    ],
    ['a: "open\nb: 3\n', 'agent-bridge.yaml:3: not valid YAML: Missing closing "quote'],
  ])('says what to fix, with file and line: %#', (text, message) => {
    expect(() => parse(text)).toThrow(ConfigError);
    expect(() => parse(text)).toThrow(message);
  });

  it('takes the chat ids add-repo takes, and refuses the ones it refuses (one rule for both)', () => {
    const specs = [
      'telegram:123456789',
      'telegram:-1001234567890',
      'telegram:abc',
      'telegram:@chan',
      'discord:1122334455',
      'discord:223456789012345678',
      'discord:-5',
      'discord:abc',
      'slack:C0123ABCD',
      'slack:G0PRIVATE1',
      'slack:D0DIRECT1',
      'slack:lowercase',
      'slack:c0123abcd',
      'slack:U0123ABCD',
      'terminal:main',
      'web:local',
    ];
    for (const spec of specs) {
      const [channel, id] = spec.split(/:(.*)/s) as [string, string];
      const text = `repos:\n  - name: a\n    dir: /x\n    channels:\n      ${channel}: [${JSON.stringify(id)}]\n`;
      let commandLine: string | null = null;
      try {
        parseChannelSpec(spec);
      } catch (error) {
        commandLine = (error as Error).message.replace(`--channel ${spec}: `, '');
      }
      let file: string | null = null;
      try {
        parse(text);
      } catch (error) {
        file = (error as Error).message.replace(/^agent-bridge\.yaml:5: repos\.0\.channels\.\w+\.0: /, '');
      }
      expect({ spec, refused: file !== null }).toEqual({ spec, refused: commandLine !== null });
      if (file && commandLine) expect(file.split(', e.g.')[0]).toBe(commandLine.split(', e.g.')[0]);
    }
  });

  it('config check and serve refuse a chat id that cannot be right, with the file and line', () => {
    const file = path.join(dir, 'agent-bridge.yaml');
    writeFileSync(
      file,
      'channels:\n  telegram:\n    token: abc\n    allowed_users: [1]\nrepos:\n  - name: a\n    dir: /tmp\n' +
        '    channels: { telegram: [abc, "@chan"], slack: [lowercase] }\n',
    );
    const said = `${file}:8: repos.0.channels.telegram.0: a telegram id is a number, e.g. 123456789`;
    const output: string[] = [];
    const target = { isTTY: false, env: {}, write: (text: string) => void output.push(text) };
    expect(() => configCheckCommand({ config: file }, target)).toThrow(said);
    expect(configCheckCommand({ config: file, json: true }, target)).toBe(2);
    expect(JSON.parse(output.join(''))).toMatchObject({ ok: false, valid: false, error: said });
    expect(() => loadConfig(file)).toThrow(said); // what serve loads
  });

  it('finds ./agent-bridge.yaml before the data folder, and an explicit file first', () => {
    const data = path.join(dir, 'data');
    const work = path.join(dir, 'work');
    for (const d of [data, work]) {
      rmSync(d, { recursive: true, force: true });
      mkdirSync(d, { recursive: true });
    }
    expect(findConfigFile(undefined, data, work)).toBeNull();
    writeFileSync(path.join(data, 'agent-bridge.yaml'), '{}');
    expect(findConfigFile(undefined, data, work)).toBe(path.join(data, 'agent-bridge.yaml'));
    writeFileSync(path.join(work, 'agent-bridge.yaml'), '{}');
    expect(findConfigFile(undefined, data, work)).toBe(path.join(work, 'agent-bridge.yaml'));
    expect(() => findConfigFile(path.join(dir, 'nope.yaml'), data, work)).toThrow(/no such config file/);
    expect(loadConfig(null).config.defaults.output_threshold).toBe(1500);
  });

  it('edits keys keeping comments, and leaves the file readable only by its owner', () => {
    const file = path.join(dir, 'agent-bridge.yaml');
    writeFileSync(file, '# my settings\ndefaults:\n  idle_timeout: 5m # short\n', { mode: 0o644 });
    editConfigFile(file, [
      { path: ['channels', 'telegram', 'token'], value: '1:abc' },
      { path: ['channels', 'telegram', 'allowed_users'], value: [42] },
    ]);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('# my settings');
    expect(text).toContain('idle_timeout: 5m # short');
    expect(parse(text).channels.telegram).toEqual({ token: '1:abc', allowed_users: [42] });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('edits keys keeping the flow lists and long lines as the file writes them', () => {
    const file = path.join(dir, 'agent-bridge.yaml');
    const long = `${'--flag '.repeat(14)}end`;
    const repos = `repos:\n  - name: a\n    dir: /tmp\n    args: [bash, /tmp/x.sh]\n    command: ${long}\n`;
    writeFileSync(file, repos);
    editConfigFile(file, [{ path: ['channels', 'telegram', 'allowed_users'], value: [42] }]);
    expect(readFileSync(file, 'utf8')).toBe(
      `${repos}channels:\n  telegram:\n    allowed_users:\n      - 42\n`,
    );
  });

  it('reads durations', () => {
    expect([
      durationMs('90s'),
      durationMs('10m'),
      durationMs('2h'),
      durationMs(5),
      durationMs('250ms'),
    ]).toEqual([90_000, 600_000, 7_200_000, 5000, 250]);
  });

  it('refuses a prompt TTL longer than a timer can wait (~24.8 days), saying the most', () => {
    expect(parse('defaults:\n  prompt_ttl:\n    yes_no: 596h\n').defaults.prompt_ttl).toEqual({
      yes_no: '596h',
    });
    for (const value of ['720h', '2592000'])
      expect(() => parse(`defaults:\n  prompt_ttl:\n    permission: 2m\n    yes_no: ${value}\n`)).toThrow(
        /^agent-bridge\.yaml:4: .*yes_no.*at most 2147483 seconds/,
      );
  });

  it('refuses a prompt TTL under a second (0 would expire each prompt at once)', () => {
    for (const value of ['0', '0s', '500ms'])
      expect(() => parse(`defaults:\n  prompt_ttl:\n    yes_no: ${value}\n`)).toThrow(
        /^agent-bridge\.yaml:3: .*yes_no.*at least 1s/,
      );
    expect(parse('defaults:\n  prompt_ttl:\n    yes_no: 1s\n').defaults.prompt_ttl).toEqual({ yes_no: '1s' });
  });

  it('refuses an idle timeout longer than a timer can wait, saying the most', () => {
    expect(parse('defaults:\n  idle_timeout: 596h\n').defaults.idle_timeout).toBe('596h');
    expect(() => parse('defaults:\n  idle_timeout: 720h\n')).toThrow(
      /^agent-bridge\.yaml:2: .*idle_timeout.*at most 2147483 seconds/,
    );
  });
});

describe('cluster: many machines', () => {
  it('takes a node or a hub, and refuses both at once or a name that cannot be a subject', () => {
    const base = 'cluster:\n  nats: nats://hub.example:4222\n  credentials: ~/.agent-bridge/laptop.nk\n';
    expect(parse(base + '  node: laptop\n').cluster).toMatchObject({ node: 'laptop' });
    expect(parse(base).cluster?.node).toBeUndefined();
    expect(() => parse(base + '  node: laptop\n  hub: main\n')).toThrow(/a node or a hub/);
    expect(() => parse(base + '  node: Lap.top\n')).toThrow(/lowercase letters/);
    expect(() => parse('cluster:\n  nats: nats://h:4222\n')).toThrow(/credentials/);
    expect(() => parse(base + '  redis: redis://x\n')).toThrow();
  });
});

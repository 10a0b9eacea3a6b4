// `driver:` and `command:` in agent-bridge.yaml, as the daemon reads them.
import { describe, expect, it } from 'vitest';
import { daemonSettings } from '../../src/cli/daemon-settings.js';
import { parseConfig } from '../../src/config/load.js';

const parse = (text: string) => parseConfig(text, 'agent-bridge.yaml', {});
const settings = (repo: string) =>
  daemonSettings(parse(`repos:\n  - name: p\n    dir: /tmp\n${repo}`), '/tmp', false);

describe('driver and command in the config', () => {
  it('accepts auto, terminal and structured; an unknown driver is the schema’s one-line error', async () => {
    for (const driver of ['auto', 'terminal', 'structured'])
      expect((await settings(`    agent: gemini\n    driver: ${driver}\n`)).repos[0]!.driver).toBe(driver);
    expect(() => parse('repos:\n  - name: p\n    dir: /tmp\n    driver: pty\n')).toThrow(
      /agent-bridge\.yaml:4: repos\.0\.driver/,
    );
  });

  it('refuses structured for an agent without a protocol, and terminal for acp, saying what to use', async () => {
    await expect(settings('    agent: aider\n    driver: structured\n')).rejects.toThrow(
      /repository p: aider has no structured driver .*use driver terminal or auto/,
    );
    await expect(
      settings('    agent: acp\n    driver: terminal\n    command: [opencode, acp]\n'),
    ).rejects.toThrow(/acp speaks only its protocol/);
  });

  it('agent: acp takes its command (a list, or one line), before args; other agents refuse command:', async () => {
    expect(
      (await settings('    agent: acp\n    command: [opencode, acp]\n    args: [--x]\n')).repos[0]!.args,
    ).toEqual(['opencode', 'acp', '--x']);
    expect((await settings('    agent: acp\n    command: cursor-agent acp\n')).repos[0]!.args).toEqual([
      'cursor-agent',
      'acp',
    ]);
    await expect(settings('    agent: claude\n    command: [claude]\n')).rejects.toThrow(
      /claude is found by itself; remove command:/,
    );
  });
});

import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { geminiScreens } from '../../src/agents/gemini/screens.js';
import { prepareLiveAgent } from './live/agents.js';
import { LiveCli } from './live/live-cli.js';

/**
 * The keys Gemini CLI's vocabulary empties its input box with (`restoresMessage.clearKeys`: the box that holds
 * the message it put back after a "No"), on the real CLI: the text goes, the CLI stays.
 */
it('empties Gemini CLI input box with the keys its vocabulary names, and the CLI goes on', async () => {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'ab-')));
  const cwd = path.join(root, 'proj');
  mkdirSync(cwd);
  const agent = await prepareLiveAgent('gemini', cwd, true);
  const cli = await LiveCli.start(agent.options);
  try {
    await cli.waitForIdle(30_000);
    await cli.waitForQuiet(1_500);
    await cli.type(['TOOL:put back by the CLI']);
    await cli.waitForText(/> TOOL:put back by the CLI/);
    const box = geminiScreens.restoresMessage!;
    await cli.type(box.clearKeys('TOOL:put back by the CLI'));
    await cli.waitForText(/> +Type your message/);
    await cli.waitForQuiet(1_000);
    // A message of two lines (a paste), put back whole: emptied line by line.
    await cli.type(['\x1b[200~TOOL:two\nlines back\x1b[201~']);
    await cli.waitForText(/lines back/);
    await cli.waitForQuiet(500);
    await cli.type(box.clearKeys('TOOL:two\nlines back'));
    await cli.waitForText(/> +Type your message/);
    await cli.waitForQuiet(1_000);
    expect(cli.exited).toBe(false);
    expect(await cli.screen()).not.toMatch(/put back by the CLI|lines back|Ctrl\+C again/);
  } finally {
    await cli.stop();
    await agent.close();
    rmSync(root, { recursive: true, force: true });
  }
}, 90_000);

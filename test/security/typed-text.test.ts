import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { auditEntries, cli, cliJson } from '../support/cli-under-pty.js';
import { ScriptWorld } from '../support/script-session.js';
import { waitFor } from '../support/wait.js';

// Issue 12, item 6: while a prompt is open, text sent to the session is never typed into it.

let world: ScriptWorld;
afterEach(async () => world?.close());

describe('text sent while a prompt waits', () => {
  it('is held, not typed into a y/n prompt, and typed once the prompt is answered; both audited without the text', async () => {
    world = new ScriptWorld();
    const run = world.run(
      'read -p "Continue? (y/n) " a; echo "got [$a]"; read -r m; echo "msg [$m]"; sleep 30',
    );
    const inbox = world.inbox();
    const prompt = await world.nextPrompt();
    expect(prompt.kind).toBe('yes_no');
    inbox.say('please hold on');
    await waitFor('the held notice', () => /A yes or no prompt is waiting/.test(inbox.output()));
    expect(await run.screen()).not.toContain('got [please hold on]');
    expect(await cliJson<unknown[]>(['approvals'], world.env)).toHaveLength(1);

    expect((await cli(['approvals', 'answer', prompt.id, 'y'], world.env)).code).toBe(0);
    await run.waitForText('got [y]');
    await run.waitForText('msg [please hold on]');

    const log = await auditEntries(world.env);
    expect(log.find((e) => e.event === 'TEXT_HELD')).toMatchObject({ prompt_id: prompt.id, chars: 14 });
    expect(log.find((e) => e.event === 'TEXT_TYPED')).toMatchObject({
      sent_by: expect.stringMatching(/^terminal:/),
      chars: 14,
    });
    expect(readFileSync(path.join(world.env.AGENT_BRIDGE_HOME!, 'audit.log'), 'utf8')).not.toContain(
      'please hold on',
    );
  });

  it('answers a prompt that takes words with those words, said back to the sender, and types nothing into it', async () => {
    world = new ScriptWorld();
    // A question whose last option takes words (the shape of Claude's AskUserQuestion), then a plain read.
    const run = world.run(
      [
        'echo "Which colour?"',
        'echo "❯ 1. Red"',
        'echo "  2. Blue"',
        'echo "  3. Type something."',
        'read -p "Enter your choice: " c',
        'echo "choice [$c]"',
        'read -r t; echo "text [$t]"; sleep 30',
      ].join('; '),
    );
    const inbox = world.inbox();
    const prompt = await world.nextPrompt();
    expect(prompt.choices.map((c) => c.label)).toContain('Type something.');
    inbox.say('no, make it green');
    await waitFor('said back', () => /Your message answered the waiting .* prompt/.test(inbox.output()));
    // The words went in after their option, as the answer; they were not typed raw into the menu.
    await run.waitForText('choice [3]');
    await run.waitForText('text [no, make it green]');
  });
});

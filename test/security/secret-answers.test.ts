import { afterEach, describe, expect, it } from 'vitest';
import { auditEntries, cli, cliJson } from '../support/cli-under-pty.js';
import { everythingStored, ScriptWorld, type ListedPrompt } from '../support/script-session.js';

// Issue 12, item 12: an answer to a password-like prompt is never stored; the audit says [secret, N characters].

let world: ScriptWorld;
afterEach(async () => world?.close());

const SECRET = 'correct-horse-battery-staple';

describe('an answer to a password prompt', () => {
  it('reaches the program but is never stored or shown: only its length', async () => {
    world = new ScriptWorld();
    const run = world.run('read -r -s -p "Password: " p; echo; echo "length ${#p}"; sleep 30');
    const prompt = await world.nextPrompt();
    expect(prompt.kind).toBe('free_text');
    const answered = await cli(['approvals', 'answer', prompt.id, SECRET], world.env);
    expect(answered.code).toBe(0);
    expect(answered.stdout).toContain(`[secret, ${SECRET.length} characters]`);
    await run.waitForText(`length ${SECRET.length}`);
    await run.stop();

    expect(everythingStored(world.env.AGENT_BRIDGE_HOME!)).not.toContain(SECRET);
    const log = await auditEntries(world.env);
    for (const event of ['REPLY_RECEIVED', 'REPLY_INJECTED'])
      expect(log.find((e) => e.event === event)).toMatchObject({
        value: `[secret, ${SECRET.length} characters]`,
      });
    const all = await cliJson<ListedPrompt[]>(['approvals'], world.env);
    expect(all).toEqual([]);
  });
});

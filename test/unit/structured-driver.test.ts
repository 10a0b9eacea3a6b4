// What every structured driver shares (StructuredDriver), through the ACP driver and the fake ACP agent.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/core/events.js';
import type { AcpDriver } from '../../src/drivers/structured/acp/acp-driver.js';
import { startFakeAcp } from '../support/fake-acp.js';
import { waitFor } from '../support/wait.js';

let cwd: string;
let driver: AcpDriver | null = null;

beforeEach(() => {
  cwd = realpathSync(mkdtempSync(path.join(tmpdir(), 'ab-structured-')));
});

afterEach(async () => {
  await driver?.stop();
  driver = null;
  rmSync(cwd, { recursive: true, force: true });
});

async function start(resume?: string): Promise<{ events: AgentEvent[]; ids: string[] }> {
  const ids: string[] = [];
  driver = await startFakeAcp(cwd, { ids, ...(resume ? { resume } : {}) });
  const events: AgentEvent[] = [];
  driver.on((event) => events.push(event));
  return { events, ids };
}

const messages = (events: AgentEvent[]) => events.flatMap((e) => (e.type === 'message' ? [e.text] : []));

describe('structured driver', () => {
  it('a resume that fails is said in the conversation (to its first listener), and a new one starts', async () => {
    const { events, ids } = await start('no-such-session');
    expect(messages(events)[0]).toMatch(
      /could not resume conversation no-such-session .*: this is a new conversation/,
    );
    expect(ids).toHaveLength(1);
    expect(ids[0]).not.toBe('no-such-session');
  });

  it('messages sent while the agent works wait their turn, in order; busy then idle', async () => {
    const { events } = await start();
    await driver!.sendText('first');
    await driver!.sendText('second');
    await driver!.sendText('third');
    await waitFor('three answers', () => messages(events).length === 3);
    expect(messages(events)).toEqual([
      'Hello from the fake agent! You said: first',
      'Hello from the fake agent! You said: second',
      'Hello from the fake agent! You said: third',
    ]);
    const states = events.flatMap((e) => (e.type === 'status' && e.state ? [e.state] : []));
    expect(states.at(-1)).toBe('idle');
  });

  it('what the agent said before asking goes out before the prompt; an answer is taken once', async () => {
    const { events } = await start();
    await driver!.sendText('TOOL:once.txt');
    const prompt = await waitFor('the prompt', () => events.find((e) => e.type === 'prompt'));
    const said = events.findIndex((e) => e.type === 'message' && e.text === 'I will create the file now.');
    expect(said).toBeGreaterThanOrEqual(0);
    expect(said).toBeLessThan(events.indexOf(prompt));
    if (prompt.type !== 'prompt') throw new Error('not a prompt');
    await expect(driver!.answer(prompt.prompt, { type: 'choice', number: 1 })).resolves.toBe('once');
    await expect(driver!.answer(prompt.prompt, { type: 'choice', number: 1 })).rejects.toThrow(
      /no longer asks/,
    );
  });

  it('a long proposed edit goes to the chat whole before its prompt, and not again once it is made', async () => {
    const { events } = await start();
    await driver!.sendText('EDIT:long.txt');
    const prompt = await waitFor('the prompt', () => events.find((e) => e.type === 'prompt'));
    const proposed = messages(events).filter((t) =>
      t.startsWith(`✏️ ${path.join(cwd, 'long.txt')} (proposed)`),
    );
    expect(proposed).toHaveLength(1);
    expect(proposed[0]).toContain('+line 100 of the new file');
    if (prompt.type !== 'prompt') throw new Error('not a prompt');
    await driver!.answer(prompt.prompt, { type: 'choice', number: 1 });
    await waitFor('its answer', () => messages(events).includes('Wrote long.txt.'));
    expect(messages(events).filter((t) => t.startsWith('✏️'))).toHaveLength(1);
  });

  it('stop ends the agent and says so: an exit event; sending afterwards is refused', async () => {
    const { events } = await start();
    await driver!.stop();
    await waitFor('the exit event', () => events.some((e) => e.type === 'exit'));
    await expect(driver!.sendText('anyone?')).rejects.toThrow(/stopped/);
  });
});

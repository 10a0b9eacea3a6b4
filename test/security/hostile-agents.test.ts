// A structured agent is outside input too: what it says and asks reaches people's chats and terminals, and it
// may ask the client to act. The fake ACP agent's HOSTILE turn tries the obvious.
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/core/events.js';
import type { AcpDriver } from '../../src/drivers/structured/acp/acp-driver.js';
import { startFakeAcp } from '../support/fake-acp.js';
import { JsonLines } from '../../src/drivers/structured/json-lines.js';
import { PassThrough } from 'node:stream';
import { waitFor } from '../support/wait.js';

let cwd: string;
let driver: AcpDriver | null = null;

beforeEach(() => {
  cwd = realpathSync(mkdtempSync(path.join(tmpdir(), 'ab-hostile-')));
});

afterEach(async () => {
  await driver?.stop();
  driver = null;
  rmSync(cwd, { recursive: true, force: true });
});

describe('a hostile structured agent', () => {
  it('cannot write files or run commands through agent-bridge, speak for another session, or send escape codes to people', async () => {
    driver = await startFakeAcp(cwd);
    const events: AgentEvent[] = [];
    driver.on((event) => events.push(event));
    await driver.sendText('HOSTILE');
    const prompt = await waitFor('its permission', () => events.find((e) => e.type === 'prompt'));
    if (prompt.type !== 'prompt') throw new Error('not a prompt');
    expect(prompt.prompt.choices.map((c) => c.label)).toEqual(['Allow once', 'Reject']);
    expect(prompt.prompt.detail).toBe('rm -rf hidden');
    await driver.answer(prompt.prompt, { type: 'choice', number: 2 });
    await waitFor('its last words', () =>
      events.some((e) => e.type === 'message' && e.text.includes('refused')),
    );
    const said = events.flatMap((e) => (e.type === 'message' ? [e.text] : []));
    expect(said).toContain('fs refused: true; terminal refused: true');
    expect(said).toContain('red evil plain');
    expect(said.join('\n')).not.toContain('FOREIGN');
    // eslint-disable-next-line no-control-regex -- no control characters may reach people
    expect(said.join('\n')).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(existsSync(path.join(cwd, 'pwned.txt'))).toBe(false);
    expect(existsSync(path.join(cwd, 'pwned2.txt'))).toBe(false);
  });

  it('lines that are not protocol messages (stray prints, arrays, broken JSON) are reported, never fatal', async () => {
    const input = new PassThrough();
    const messages: unknown[] = [];
    const junk: string[] = [];
    new JsonLines(input, new PassThrough(), {
      message: (m) => messages.push(m),
      junk: (_line, reason) => junk.push(reason),
    });
    input.end('Loading...\n[1,2]\n{"broken":\n\n{"ok":true}\n');
    await waitFor('the lines read', () => messages.length === 1 && junk.length === 3);
    expect(messages).toEqual([{ ok: true }]);
    expect(junk).toEqual(['not JSON', 'not a JSON object', 'not JSON']);
  });
});

import { describe, expect, it } from 'vitest';
import { FirstPrompt } from '../../src/sessions/first-prompt.js';

/** A recorder whose check says yes to the lines in `echoed`; what it was offered, and what it kept. */
function recorder(echoed: (line: string) => boolean = () => true) {
  const offered: Array<[string, boolean]> = [];
  const kept: string[] = [];
  const first = new FirstPrompt(async (line, typed) => {
    offered.push([line, typed]);
    if (!echoed(line)) return false;
    kept.push(line);
    return true;
  });
  return { first, offered, kept };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('the first prompt of a session', () => {
  it('is the first line typed, as edited with backspace and Ctrl-U, escape sequences left out', async () => {
    const { first, kept } = recorder();
    first.typed('fix teh');
    first.typed('\x7f\x7fhe login\x1b[200~ test\x1b[201~');
    first.typed('\r');
    await settle();
    expect(kept).toEqual(['fix the login test']);
    first.typed('later line\r');
    await settle();
    expect(kept).toEqual(['fix the login test']);
  });

  it('skips a line changed with cursor or history keys, a single word, and a line the check refuses', async () => {
    const { first, offered, kept } = recorder((line) => line !== 'hunter2 secret');
    first.typed('\x1b[Aold command\r');
    first.typed('exit\r');
    first.typed('oops\x15hunter2 secret\r');
    await settle();
    first.typed('deploy the app\r');
    await settle();
    expect(offered.map(([line]) => line)).toEqual(['hunter2 secret', 'deploy the app']);
    expect(kept).toEqual(['deploy the app']);
  });

  it('takes a message sent whole (from a chat) as it was sent, not as typed keys', async () => {
    const { first, offered } = recorder();
    first.sent('  summarise\n the   open issues ');
    await settle();
    expect(offered).toEqual([['summarise the open issues', false]]);
  });
});

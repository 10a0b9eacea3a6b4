import { describe, expect, it } from 'vitest';
import { StartupResponder, STARTUP_ANSWER_DELAY_MS } from '../../src/drivers/terminal/startup-responder.js';
import { FakeClock } from '../support/fake-clock.js';

const trust = { name: 'folder trust', pattern: /Yes, I trust this folder/, answer: '\r' };

function setup(screen: { text: string }) {
  const clock = new FakeClock();
  const typed: string[] = [];
  const responder = new StartupResponder(
    [trust],
    clock,
    () => screen.text,
    async (keys) => void typed.push(keys),
  );
  return { clock, typed, responder };
}

describe('start-up question auto-accept', () => {
  it('answers a matching question once, after the dialog had time to draw', () => {
    const screen = { text: '❯ 1. Yes, I trust this folder\n  2. No, exit' };
    const { clock, typed, responder } = setup(screen);
    responder.check();
    expect(typed).toEqual([]);
    clock.advance(STARTUP_ANSWER_DELAY_MS);
    expect(typed).toEqual(['\r']);
    responder.check();
    clock.advance(STARTUP_ANSWER_DELAY_MS);
    expect(typed).toEqual(['\r']);
  });

  it('does not type when the question disappeared before the answer was due', () => {
    const screen = { text: 'Yes, I trust this folder' };
    const { clock, typed, responder } = setup(screen);
    responder.check();
    screen.text = '> idle prompt';
    clock.advance(STARTUP_ANSWER_DELAY_MS);
    expect(typed).toEqual([]);
  });

  it('ignores screens without the question', () => {
    const { clock, typed, responder } = setup({ text: 'Do you want to proceed? 1. Yes' });
    responder.check();
    clock.advance(STARTUP_ANSWER_DELAY_MS * 2);
    expect(typed).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { startsTerminalRun } from '../../src/cli/early-start.js';

describe('the early start of a session host (bin/agent-bridge.js)', () => {
  it('guesses a run in this terminal from the raw arguments', () => {
    expect(startsTerminalRun(['run', 'shell'])).toBe(true);
    expect(startsTerminalRun(['run', 'custom', '--no-record', '--', 'sh', '-c', 'true'])).toBe(true);
    expect(startsTerminalRun(['run', 'claude', '--driver', 'terminal'])).toBe(true);
    expect(startsTerminalRun(['run', 'claude', '--no-detach'])).toBe(true);
  });

  it('starts none for another command, help, --detach or the structured driver', () => {
    expect(startsTerminalRun([])).toBe(false);
    expect(startsTerminalRun(['serve'])).toBe(false);
    expect(startsTerminalRun(['attach', 'run'])).toBe(false);
    expect(startsTerminalRun(['run', '--help'])).toBe(false);
    expect(startsTerminalRun(['run', 'shell', '-h'])).toBe(false);
    expect(startsTerminalRun(['run', 'shell', '--detach'])).toBe(false);
    expect(startsTerminalRun(['run', 'gemini', '--driver', 'structured'])).toBe(false);
    expect(startsTerminalRun(['run', 'gemini', '--driver=structured'])).toBe(false);
  });

  it('reads only the options before --: the rest are the agent’s', () => {
    expect(startsTerminalRun(['run', 'custom', '--', 'tool', '--help'])).toBe(true);
    expect(startsTerminalRun(['run', 'custom', '--', 'tool', '--detach'])).toBe(true);
    expect(startsTerminalRun(['run', 'custom', '--', 'x', '--driver', 'structured'])).toBe(true);
  });
});

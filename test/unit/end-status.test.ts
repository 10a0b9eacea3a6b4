import { describe, expect, it } from 'vitest';
import { endStatusOf } from '../../src/sessions/session-record-files.js';

describe('how a session ended, the same under run, attach, serve and stop', () => {
  it('an agent that exits on its own completed, whatever its code (kept beside it)', () => {
    expect(endStatusOf({ exitCode: 0, signal: null }, false)).toBe('completed');
    expect(endStatusOf({ exitCode: 7, signal: null }, false)).toBe('completed');
  });

  it('stopped through agent-bridge, or by a signal a person sends: terminated', () => {
    expect(endStatusOf({ exitCode: 3, signal: null }, true)).toBe('terminated');
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'])
      expect(endStatusOf({ exitCode: null, signal }, false)).toBe('terminated');
  });

  it('killed by any other signal, or gone with no exit known: crashed', () => {
    expect(endStatusOf({ exitCode: null, signal: 'SIGKILL' }, false)).toBe('crashed');
    expect(endStatusOf({ exitCode: null, signal: 'SIGSEGV' }, false)).toBe('crashed');
    expect(endStatusOf({ exitCode: null, signal: null }, false)).toBe('crashed');
  });
});

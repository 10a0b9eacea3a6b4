import { describe, expect, it } from 'vitest';
import { parseProcStat, readProcess } from '../../src/drivers/terminal/process-tree.js';

describe('/proc/<pid>/stat parsing', () => {
  it('reads pid, parent, group, session and terminal group even when the name has spaces and parentheses', () => {
    const stat =
      '4242 (my (weird) cmd) S 4200 4242 4100 34816 4242 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 200';
    expect(parseProcStat(stat)).toEqual({
      pid: 4242,
      command: 'my (weird) cmd',
      state: 'S',
      ppid: 4200,
      pgid: 4242,
      sid: 4100,
      tpgid: 4242,
      startTime: 987654,
    });
  });

  it('rejects garbage', () => {
    expect(parseProcStat('nonsense')).toBeNull();
  });

  it.skipIf(process.platform !== 'linux')('reads our own process', () => {
    const me = readProcess(process.pid);
    expect(me?.pid).toBe(process.pid);
    expect(me?.ppid).toBe(process.ppid);
  });
});

import { describe, expect, it } from 'vitest';
import { watchOnly } from '../../src/channels/web/web-sockets.js';

describe('whether a terminal viewer only watches (?watch=…)', () => {
  it('watches for any watch but watch=0, however often it is given', () => {
    expect(watchOnly({})).toBe(false);
    expect(watchOnly({ watch: '0' })).toBe(false);
    expect(watchOnly({ watch: ['0', '0'] })).toBe(false);
    for (const watch of ['1', '', 'true', '01', 'no', ['1', '1'], ['0', '1'], ['1', '0']])
      expect(watchOnly({ watch }), JSON.stringify(watch)).toBe(true);
  });
});

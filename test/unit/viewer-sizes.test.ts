import { describe, expect, it } from 'vitest';
import { SizeArbiter, type CellSize, type SizeInfo } from '../../src/sessions/viewer-sizes.js';

/** An arbiter over a terminal of 80×24, recording each resize and what each viewer was told last. */
function arbiter() {
  const resizes: CellSize[] = [];
  const told = new Map<string, SizeInfo>();
  const sizes = new SizeArbiter<string>(
    { cols: 80, rows: 24 },
    (size) => resizes.push(size),
    (viewer, info) => told.set(viewer, info),
  );
  return { sizes, resizes, told };
}

describe('which viewer sizes the terminal', () => {
  it('is the first to come until someone types; then whoever typed last', () => {
    const { sizes, resizes, told } = arbiter();
    sizes.add('desk', false);
    sizes.wants('desk', { cols: 200, rows: 50 });
    sizes.add('phone', false);
    sizes.wants('phone', { cols: 40, rows: 20 });
    expect(resizes).toEqual([{ cols: 200, rows: 50 }]);
    sizes.active('phone');
    expect(resizes.at(-1)).toEqual({ cols: 40, rows: 20 });
    expect(told.get('desk')).toEqual({ cols: 40, rows: 20, driving: false });
    expect(told.get('phone')).toEqual({ cols: 40, rows: 20, driving: true });
  });

  it('is never a read-only viewer', () => {
    const { sizes, resizes } = arbiter();
    sizes.add('watcher', true);
    sizes.wants('watcher', { cols: 30, rows: 10 });
    sizes.active('watcher');
    expect(resizes).toEqual([]);
    expect(sizes.driving).toBeNull();
  });

  it('is a stand-in (serve) only for viewers it relays: a viewer of its own goes first', () => {
    const { sizes, resizes, told } = arbiter();
    sizes.add('serve', false, true);
    sizes.wants('serve', { cols: 120, rows: 40 });
    // Driving unasked, the stand-in keeps the terminal as it is.
    expect(resizes).toEqual([]);
    sizes.add('browser', false);
    expect(sizes.driving).toBe('browser');
    sizes.wants('browser', { cols: 100, rows: 30 });
    expect(resizes).toEqual([{ cols: 100, rows: 30 }]);
    expect(told.get('browser')).toEqual({ cols: 100, rows: 30, driving: true });
    // The browser goes: the stand-in drives again, and the terminal keeps the size it has.
    sizes.remove('browser');
    expect(sizes.driving).toBe('serve');
    expect(resizes).toEqual([{ cols: 100, rows: 30 }]);
  });

  it('is the stand-in once it is active (a viewer it relays typed), at the size it asks', () => {
    const { sizes, resizes } = arbiter();
    sizes.add('browser', false);
    sizes.wants('browser', { cols: 100, rows: 30 });
    sizes.add('serve', false, true);
    sizes.wants('serve', { cols: 60, rows: 20 });
    sizes.active('serve');
    expect(sizes.driving).toBe('serve');
    expect(resizes.at(-1)).toEqual({ cols: 60, rows: 20 });
  });
});

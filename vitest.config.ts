import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Most of the suite waits on real agent CLIs, PTYs and sockets rather than computing: two workers even on two
// cores (the default, cores - 1, ran it serially there: ~19 min against ~11). The tests are written for that
// load: nothing in them depends on how fast the machine is (a tick, an echo, a settle is waited for).
const workers = Math.max(2, availableParallelism() - 1);

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: workers,
    minWorkers: 1,
  },
});

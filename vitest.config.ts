import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Workers: at least two, even on two cores (vitest's default there is one: ~19 min, against ~11 with two).
// Most of a test's time is spent waiting on agents and sockets, not computing.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Ends (and names) the session hosts a test left running: they are detached and would outlive the run.
    globalSetup: ['test/support/leftover-hosts.ts'],
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});

import { defineConfig } from 'vitest/config';

// Workers: vitest's default (cores - 1: one on two cores, ~19 min). Two take ~11 min there, but under that load
// a fresh Claude Code session's first message, sent with a file, is sometimes never submitted (the discord- and
// slack-claude e2e tests): make that submit checked before raising maxWorkers.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});

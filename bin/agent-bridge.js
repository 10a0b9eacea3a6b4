#!/usr/bin/env node
// The command, bundled by `npm run build` (scripts/bundle-cli.mjs): a few files to load instead of hundreds.
// `early` first and alone: a `run`'s session host starts while the command loads.
const { startEarly } = await import('../dist/bundle/early.js');
startEarly(process.argv);
const { main } = await import('../dist/bundle/main.js');

await main(process.argv);

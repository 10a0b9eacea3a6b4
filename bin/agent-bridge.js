#!/usr/bin/env node
// The command, bundled by `npm run build` (scripts/bundle-cli.mjs): a few files to load instead of hundreds.
import { main } from '../dist/bundle/main.js';

await main(process.argv);

// A line-oriented program for bench/structured-latency.ts under the terminal driver: each line it reads asks
// `(y/n)`, stamped with this process's wall clock (timeOrigin + now, in ms) just before it is written.
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';

const now = () => (performance.timeOrigin + performance.now()).toFixed(3);
const lines = createInterface({ input: process.stdin });
let asking = false;
lines.on('line', () => {
  if (asking) {
    asking = false;
    process.stdout.write(`done message-at=${now()}\n`);
    return;
  }
  asking = true;
  process.stdout.write(`prompt-at=${now()} Continue? (y/n) `);
});

#!/usr/bin/env node
// A scripted fake agent for the kill campaign: round after round it prints a burst of numbered lines, then
// asks "Step <n>: go on? (y/n)" and reads one line. What it printed, what it was asked and what it got are
// written to files in <dir> as they happen: the truth the recording, the store and the audit are checked
// against.
//   node rounds-agent.mjs <dir> <rounds> <lines per burst>
import { appendFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';

const [dir, roundsArg = '5', linesArg = '200'] = process.argv.slice(2);
const rounds = Number(roundsArg);
const perBurst = Number(linesArg);
const printed = path.join(dir, 'printed.txt');
const phase = path.join(dir, 'phase.txt');
const answers = path.join(dir, 'answers.txt');
writeFileSync(printed, '');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const say = (text) =>
  new Promise((resolve) => {
    appendFileSync(printed, text);
    process.stdout.write(text, resolve);
  });
const lines = readline.createInterface({ input: process.stdin });
const nextLine = () => new Promise((resolve) => lines.once('line', resolve));

for (let round = 1; round <= rounds; round++) {
  writeFileSync(phase, `output ${round}\n`);
  for (let i = 1; i <= perBurst; i++) {
    await say(`round ${round} line ${i} ${'.'.repeat(i % 40)}\n`);
    if (i % 10 === 0) await sleep(10);
  }
  const asked = nextLine();
  await say(`Step ${round}: go on? (y/n) `);
  writeFileSync(phase, `prompt ${round}\n`);
  const answer = await asked;
  appendFileSync(answers, `${round}:${answer}\n`);
  await say(`step ${round} got [${answer}]\n`);
}
writeFileSync(phase, 'done\n');
await say('all rounds done\n');
await sleep(600_000);

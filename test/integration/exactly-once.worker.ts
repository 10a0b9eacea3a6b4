// One competing process-like writer: its own SQLite connection answering the same prompt many times.
import { parentPort, workerData } from 'node:worker_threads';
import { openStore } from '../../src/store/store.js';

const { dir, promptId, sessionId, nonce, attempts, name } = workerData as {
  dir: string;
  promptId: string;
  sessionId: string;
  nonce: string;
  attempts: number;
  name: string;
};
const store = openStore({ dir });
let wins = 0;
for (let i = 0; i < attempts; i++) {
  const decided = store.prompts.decide({
    promptId,
    sessionId,
    nonce,
    reply: { type: 'choice', number: 1 + (i % 3) },
    decidedBy: `${name}:${i}`,
  });
  if (decided) wins++;
}
store.close();
parentPort?.postMessage(wins);

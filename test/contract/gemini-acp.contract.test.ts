import { structuredSubject } from './real-agents.js';
import { driverContract } from './driver-contract.js';

driverContract(
  structuredSubject('gemini', 'ACP, Gemini CLI (real CLI)', {
    // Seen with 0.61 offline: session/load answers "No previous sessions found for this project", and so does
    // its own `gemini --list-sessions`, for the sessions it just saved. The driver says so in the chat and
    // goes on in a new conversation (test/unit/structured-driver.test.ts).
    resume: 'Gemini CLI 0.61 finds no saved session to load here (its own --list-sessions neither)',
  }),
);

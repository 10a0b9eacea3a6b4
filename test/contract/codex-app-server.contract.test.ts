import { structuredSubject } from './real-agents.js';
import { driverContract } from './driver-contract.js';

driverContract(structuredSubject('codex', 'Codex app-server (real CLI)'));

import { structuredSubject } from './real-agents.js';
import { driverContract } from './driver-contract.js';

driverContract(structuredSubject('copilot', 'ACP, Copilot CLI (real CLI)'));

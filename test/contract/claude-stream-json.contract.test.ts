import { structuredSubject } from './real-agents.js';
import { driverContract } from './driver-contract.js';

driverContract(structuredSubject('claude', 'Claude Code over stream-json (real CLI)'));

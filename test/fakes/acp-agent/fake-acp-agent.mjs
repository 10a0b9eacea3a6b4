#!/usr/bin/env node
// Starts the fake ACP agent (agent.ts) from any folder: tsx is resolved from here, not from the cwd.
import { register } from 'tsx/esm/api';

register();
await import('./agent.ts');

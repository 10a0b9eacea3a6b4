/** Process liveness for the commands: a pid and its start time, so reuse and zombies do not fool us. */
export { isProcessAlive, ownProcessRef, type ProcessRef } from '../drivers/terminal/process-tree.js';

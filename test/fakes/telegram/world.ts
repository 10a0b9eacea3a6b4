// What every method handler works on.
import type { ChatStore } from './state.js';
import type { CallbackAnswer } from './types.js';
import type { UpdateQueue } from './updates.js';
import type { Params } from './wire.js';

export interface World {
  store: ChatStore;
  updates: UpdateQueue;
  /** Open callback query ids → answered yet? */
  callbackQueries: Map<string, boolean>;
  callbackAnswers: CallbackAnswer[];
  commands: Map<string, unknown[]>;
}

export type Handler = (world: World, params: Params) => unknown;

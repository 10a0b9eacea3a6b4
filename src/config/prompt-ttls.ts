import type { PromptKind } from '../core/events.js';
import { durationMs } from './duration.js';
import type { Config } from './schema.js';

/** How long each kind of prompt waits, as `defaults.prompt_ttl` says (kinds it leaves out keep their default). */
export type PromptTtls = Partial<Record<PromptKind, number>>;

/** `defaults.prompt_ttl`, in milliseconds: every session the config's process starts or takes over uses it. */
export function promptTtls(config: Config | null): PromptTtls {
  const ttls: PromptTtls = {};
  for (const [kind, value] of Object.entries(config?.defaults.prompt_ttl ?? {})) {
    if (value !== undefined) ttls[kind as PromptKind] = durationMs(value);
  }
  return ttls;
}

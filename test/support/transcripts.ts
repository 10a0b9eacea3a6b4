// Reads the recorded protocol transcripts in test/fixtures/<protocol>/<agent>-<scenario>.jsonl.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface TranscriptLine {
  from: 'client' | 'agent';
  message: Record<string, unknown>;
}

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');

export function transcript(protocol: string, name: string): TranscriptLine[] {
  return readFileSync(path.join(FIXTURES, protocol, `${name}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as TranscriptLine);
}

/** What the agent sent, in order. */
export function fromAgent(protocol: string, name: string): Array<Record<string, unknown>> {
  return transcript(protocol, name)
    .filter((line) => line.from === 'agent')
    .map((line) => line.message);
}

/** Every transcript of a protocol (a converter test fails when an agent has none). */
export function transcriptNames(protocol: string): string[] {
  return readdirSync(path.join(FIXTURES, protocol))
    .filter((file) => file.endsWith('.jsonl'))
    .map((file) => file.replace(/\.jsonl$/, ''));
}

import { recordingsDir } from '../../store/paths.js';
import { listRecordings, UnknownRecordingError } from '../../store/recordings.js';
import { CliFailure } from '../errors.js';
import { printJson, printTable, stdoutTarget, type OutputTarget } from '../output.js';

export interface RecordingsOptions {
  json?: boolean;
  /** How many, newest first; 0 for all. */
  limit: number;
  /** Only those older than this recording (its id): the next page. */
  before?: string;
}

export async function recordingsCommand(
  options: RecordingsOptions,
  target: OutputTarget = stdoutTarget,
): Promise<void> {
  const page = await listRecordings(recordingsDir(), {
    ...(options.limit > 0 ? { limit: options.limit } : {}),
    ...(options.before !== undefined ? { before: options.before } : {}),
  }).catch((error: unknown) => {
    if (error instanceof UnknownRecordingError)
      throw new CliFailure(`${error.message} (agent-bridge recordings lists them)`);
    throw error;
  });
  if (options.json) {
    printJson(target, page.recordings);
    return;
  }
  if (page.total === 0) {
    target.write(`no recordings yet in ${recordingsDir()}: start one with agent-bridge run shell\n`);
    return;
  }
  printTable(
    target,
    ['STARTED', 'DURATION', 'SIZE', 'COMMAND', 'FILE'],
    page.recordings.map((r) => [
      r.startedAt ? r.startedAt.replace('T', ' ').slice(0, 19) : '?',
      formatDuration(r.durationSeconds),
      formatBytes(r.bytes),
      r.command ?? r.title ?? '',
      r.file,
    ]),
  );
  if (page.next)
    target.write(
      `(${page.recordings.length} of ${page.total}; older: agent-bridge recordings --before ${page.next}, or -n 0 for all)\n`,
    );
}

function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

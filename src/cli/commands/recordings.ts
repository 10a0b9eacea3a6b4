import { recordingsDir } from '../../store/paths.js';
import { listRecordings } from '../../store/recordings.js';
import { printJson, printTable, stdoutTarget, type OutputTarget } from '../output.js';

export function recordingsCommand(options: { json?: boolean }, target: OutputTarget = stdoutTarget): void {
  const recordings = listRecordings(recordingsDir());
  if (options.json) {
    printJson(target, recordings);
    return;
  }
  if (recordings.length === 0) {
    target.write(`no recordings yet in ${recordingsDir()}: start one with agent-bridge run shell\n`);
    return;
  }
  printTable(
    target,
    ['STARTED', 'DURATION', 'SIZE', 'COMMAND', 'FILE'],
    recordings.map((r) => [
      r.startedAt ? r.startedAt.replace('T', ' ').slice(0, 19) : '?',
      formatDuration(r.durationSeconds),
      formatBytes(r.bytes),
      r.command ?? r.title ?? '',
      r.file,
    ]),
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

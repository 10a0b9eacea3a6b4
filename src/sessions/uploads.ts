import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { InboundFile } from '../channels/contract.js';

/** Files people send: at most 50 MB each (seed 001), saved privately for the agent to read. */
export const MAX_UPLOAD_BYTES = 50 * 1024 * 1024;

export type UploadResult = { ok: true; input: string; paths: string[] } | { ok: false; reason: string };

/**
 * Downloads every file into `dir` and returns what to type into the agent: the words sent with them, then
 * their paths. Any file over the limit refuses the whole message, before anything is downloaded.
 */
export async function saveUploads(
  files: InboundFile[],
  dir: string,
  caption?: string,
): Promise<UploadResult> {
  const large = files.find((file) => file.size > MAX_UPLOAD_BYTES);
  if (large)
    return {
      ok: false,
      reason: `${large.fileName} is too large (${megabytes(large.size)} MB): the limit is ${megabytes(MAX_UPLOAD_BYTES)} MB`,
    };
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const paths: string[] = [];
  for (const file of files) {
    let data: Buffer;
    try {
      data = await file.download(MAX_UPLOAD_BYTES);
    } catch (error) {
      return { ok: false, reason: `could not receive ${file.fileName}: ${(error as Error).message}` };
    }
    const target = uniquePath(dir, safeName(file.fileName));
    writeFileSync(target, data, { mode: 0o600 });
    paths.push(target);
  }
  return { ok: true, input: [caption?.trim(), ...paths].filter(Boolean).join('\n'), paths };
}

function safeName(name: string): string {
  return (
    path
      .basename(name)
      .replace(/[^\w.-]/g, '_')
      .replace(/^\.+/, '_') || 'upload'
  );
}

/** Never overwrite an earlier upload: `a.txt`, `a-2.txt`, … */
function uniquePath(dir: string, name: string): string {
  const { name: stem, ext } = path.parse(name);
  for (let n = 1; ; n++) {
    const candidate = path.join(dir, n === 1 ? name : `${stem}-${n}${ext}`);
    try {
      writeFileSync(candidate, '', { flag: 'wx', mode: 0o600 });
      return candidate;
    } catch {
      // taken: try the next name
    }
  }
}

function megabytes(bytes: number): number {
  return Math.round((bytes / 1024 / 1024) * 10) / 10;
}

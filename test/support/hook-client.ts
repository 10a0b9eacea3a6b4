import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const CLIENT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/hook-client.mjs');

/** Runs the real hook client as Claude Code would: payload on stdin, answer on stdout. */
export function runHookClient(
  event: string,
  payload: object,
  env: Record<string, string>,
): { child: ChildProcess; done: Promise<{ code: number | null; stdout: string }> } {
  const child = spawn(process.execPath, [CLIENT, event], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout!.on('data', (d) => (stdout += String(d)));
  child.stdin!.end(JSON.stringify(payload));
  const done = new Promise<{ code: number | null; stdout: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout })),
  );
  return { child, done };
}

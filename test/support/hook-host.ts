import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { HookSessionHandler } from '../../src/drivers/hooks/hook-answers.js';
import { relayHooks } from '../../src/sessions/session-hooks.js';
import { startTestHost, type TestHost } from './test-host.js';

/**
 * The path Claude Code's hooks take, with `handler` in place of a session: a real session host (its agent
 * idle) that takes hook posts on its socket with a token, and a controller connected to it relaying them to
 * `handler` as a session does (relayHooks). `env` is what the hook client needs.
 */
export interface HookHost {
  host: TestHost;
  socket: string;
  token: string;
  env: Record<string, string>;
  /** The posts the host refused, as the controller heard of them (a session audits each). */
  refused: Array<{ event: string; reason: string }>;
  close(): Promise<void>;
}

export async function startHookHost(handler: HookSessionHandler): Promise<HookHost> {
  const dir = mkdtempSync(path.join(tmpdir(), 'ab-hooks-'));
  const token = randomBytes(32).toString('hex');
  const host = await startTestHost(dir, 'sleep 600', { hookToken: token, session: { hooks: true } });
  const controller = await host.connect({ control: 'if-free' });
  const refused: HookHost['refused'] = [];
  relayHooks(controller, () => handler);
  controller.onFrame((frame) => {
    if (frame.type === 'hookRefused') refused.push({ event: frame.event, reason: frame.reason });
  });
  controller.start();
  return {
    host,
    socket: host.socket,
    token,
    env: { AGENT_BRIDGE_HOOK_SOCKET: host.socket, AGENT_BRIDGE_HOOK_TOKEN: token },
    refused,
    close: async () => {
      await host.end().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A raw hook post to a host's socket, with whatever headers and body an attacker likes. */
export function postHook(
  socket: string,
  event: string,
  headers: Record<string, string>,
  body: string | Uint8Array,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve) => {
    const options = { socketPath: socket, path: `/hooks/${event}`, method: 'POST', headers, agent: false };
    const req = request(options, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += String(chunk)));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', () => resolve({ status: -1, text: '' }));
    // A body refused before it is read (401, 413) may still be in flight when the host hangs up: that write's
    // EPIPE, after the answer, is the refusal working, not an error of the test.
    req.on('socket', (s) => s.on('error', () => undefined));
    req.end(body);
  });
}

/** Headers of a hook post with `token` as its bearer. */
export const bearer = (token: string): Record<string, string> => ({
  'content-type': 'application/json',
  authorization: `Bearer ${token}`,
});

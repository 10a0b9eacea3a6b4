import WebSocket from 'ws';
import type { TerminalAttachment, TerminalViewer } from '../../channels/web/backend.js';
import type { Clock } from '../../core/clock.js';
import { parseShareFrame, SHARE_FRAME_LIMIT, type ShareFrame } from './share-wire.js';

/** How long serve waits for `run` to greet it before the browser is told there is nothing to show. */
const HELLO_TIMEOUT_MS = 5_000;

/**
 * A browser viewer of a session that `agent-bridge run` runs: one connection to that process's share socket
 * (terminal-share.ts) per viewer. The size is the terminal's that `run` runs in: this viewer never drives it.
 * Keys go through only when that process allows them; it decides, not this one.
 */
export function attachRemote(
  socketPath: string,
  viewer: TerminalViewer & { closed?(): void },
  readOnly: boolean,
  clock: Clock,
): Promise<TerminalAttachment | null> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`ws+unix://${socketPath}:/`, { maxPayload: SHARE_FRAME_LIMIT });
    let attached = false;
    let exited = false;
    const redraws: Array<(screen: string) => void> = [];
    const timer = clock.after(HELLO_TIMEOUT_MS, () => socket.terminate());
    const send = (frame: object) => socket.readyState === socket.OPEN && socket.send(JSON.stringify(frame));
    const onFrame = (frame: ShareFrame) => {
      if (frame.type === 'hello' && !attached) {
        attached = true;
        timer.cancel();
        const canType = frame.canType && !readOnly;
        resolve({
          cols: frame.cols,
          rows: frame.rows,
          canType,
          screen: frame.screen,
          redraw: () =>
            new Promise<string>((done) => {
              redraws.push(done);
              send({ type: 'redraw' });
            }),
          input: (data) => canType && send({ type: 'input', data }),
          resize: () => undefined,
          drive: () => undefined,
          // At once: a closing handshake with a run that does not answer would hold serve's exit for 30 s.
          detach: () => socket.terminate(),
        });
        viewer.size?.({ cols: frame.cols, rows: frame.rows, driving: false });
      } else if (frame.type === 'screen') redraws.shift()?.(frame.data);
      else if (frame.type === 'size') viewer.size?.({ cols: frame.cols, rows: frame.rows, driving: false });
      else if (frame.type === 'exit') {
        exited = true;
        viewer.exit({ exitCode: frame.exitCode, signal: frame.signal });
      }
    };
    socket.on('message', (data, isBinary) => {
      if (isBinary) {
        if (attached) viewer.output(toBytes(data));
        return;
      }
      const frame = parseShareFrame(String(data));
      if (frame) onFrame(frame);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      timer.cancel();
      if (!attached) resolve(null);
      else if (!exited) viewer.closed?.();
    });
  });
}

/** Asks `run` to stop its session (it does only when its person allowed the web to type): true when asked. */
export function stopRemote(socketPath: string, clock: Clock): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`ws+unix://${socketPath}:/`, { maxPayload: SHARE_FRAME_LIMIT });
    const timer = clock.after(HELLO_TIMEOUT_MS, () => socket.terminate());
    let asked = false;
    socket.on('message', (data, isBinary) => {
      const frame = isBinary ? null : parseShareFrame(String(data));
      if (frame?.type !== 'hello' || asked) return;
      asked = frame.canType;
      if (asked) socket.send(JSON.stringify({ type: 'stop' }));
      socket.close();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      timer.cancel();
      resolve(asked);
    });
  });
}

function toBytes(data: WebSocket.RawData): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  return data instanceof ArrayBuffer ? new Uint8Array(data) : data;
}

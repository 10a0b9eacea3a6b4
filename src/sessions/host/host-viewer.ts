import type { TerminalAttachment, TerminalViewer } from '../../channels/web/backend.js';
import type { Clock } from '../../core/clock.js';
import { HostConnection } from './host-connection.js';

/**
 * A browser viewer of a session another process controls (`agent-bridge run` in a terminal, or `attach`):
 * one connection to its session host per viewer, as a `web` client. It watches at the size the session has
 * (a person's terminal sets it); its keys and a Stop are taken only where the session allows the web to type
 * (`run --web-input`), and the host decides that, whatever this side sends.
 */
export async function viewHosted(
  dataDir: string,
  socket: string,
  viewer: TerminalViewer,
  readOnly: boolean,
  clock: Clock,
): Promise<TerminalAttachment | null> {
  const connection = await HostConnection.open({
    dataDir,
    socket,
    client: 'web',
    watch: readOnly,
    clock,
  }).catch(() => null);
  if (!connection) return null;
  const { welcome } = connection;
  // The host decides (an older one says nothing of it: then by the session's rule here too).
  const canType = (welcome.canType ?? welcome.session.webInput) && !readOnly;
  let exited = welcome.exit !== null;
  connection.onOutput((chunk) => viewer.output(chunk));
  connection.onFrame((frame) => {
    if (frame.type === 'size') viewer.size?.({ cols: frame.cols, rows: frame.rows, driving: false });
    if (frame.type === 'exit') {
      exited = true;
      viewer.exit({ exitCode: frame.report.exitCode, signal: frame.report.signal });
    }
  });
  connection.onClose(() => {
    if (!exited) viewer.closed?.();
  });
  viewer.size?.({ cols: welcome.cols, rows: welcome.rows, driving: false });
  connection.start();
  return {
    cols: welcome.cols,
    rows: welcome.rows,
    canType,
    // Its person's terminal sizes it: a browser only watches at that size.
    fixedSize: true,
    screen: welcome.screen,
    redraw: async () => String((await connection.request({ type: 'redraw' })).screen ?? ''),
    input: (data) => {
      if (canType) connection.sendInput(data);
    },
    resize: () => undefined,
    drive: () => undefined,
    detach: () => connection.close(),
  };
}

/** Asks the host to stop its agent, as the web: true when it did (the session lets the web type). */
export async function stopHosted(dataDir: string, socket: string, clock: Clock): Promise<boolean> {
  const connection = await HostConnection.open({
    dataDir,
    socket,
    client: 'web',
    output: false,
    clock,
  }).catch(() => null);
  if (!connection) return false;
  connection.start();
  try {
    await connection.request({ type: 'stop' });
    return true;
  } catch {
    return false;
  } finally {
    connection.close();
  }
}

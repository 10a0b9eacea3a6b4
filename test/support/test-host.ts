import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { systemClock } from '../../src/core/clock.js';
import { HostConnection, type ConnectOptions } from '../../src/sessions/host/host-connection.js';
import type { HostStart } from '../../src/sessions/host/host-main.js';
import { spawnHost, type SpawnedHost } from '../../src/sessions/host/spawn-host.js';
import { processExists, waitFor } from './wait.js';

/** A session host running `bash -c <script>` in `dataDir`, for tests that talk to it directly. */
export interface TestHost extends SpawnedHost {
  id: string;
  dataDir: string;
  connect(options?: Partial<ConnectOptions>): Promise<HostConnection>;
  /** Ends the host (SIGTERM: it stops its agent), by its pid, and waits for it. */
  end(): Promise<void>;
}

export async function startTestHost(
  dataDir: string,
  script: string,
  {
    terminalFd,
    ...options
  }: Partial<Omit<HostStart, 'session'>> & {
    session?: Partial<HostStart['session']>;
    /** With `terminal`: the file descriptor of this process the host writes the output to. */
    terminalFd?: number;
  } = {},
): Promise<TestHost> {
  const id = randomUUID();
  const spawned = await spawnHost(
    {
      dataDir,
      args: ['--norc', '--noprofile', '-c', script],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dataDir, LANG: 'C.UTF-8' },
      cols: 80,
      rows: 24,
      recording: null,
      lines: false,
      hookToken: null,
      endWithController: false,
      version: '0.0.0-test',
      ...options,
      session: {
        id,
        agent: 'custom',
        label: 'test',
        cwd: dataDir,
        command: '/bin/bash',
        recording: null,
        webInput: false,
        webView: true,
        hooks: false,
        startedAt: Date.now(),
        ...options.session,
      },
    },
    terminalFd === undefined ? {} : { terminalFd },
  );
  const connections: HostConnection[] = [];
  return {
    ...spawned,
    id,
    dataDir,
    connect: async (connect = {}) => {
      const connection = await HostConnection.open({
        dataDir,
        socket: spawned.socket,
        client: 'terminal',
        clock: systemClock,
        ...connect,
      });
      connections.push(connection);
      return connection;
    },
    end: async () => {
      // Its clients go first: a host waits a while for a controller still there to record the end.
      for (const connection of connections) connection.close();
      if (processExists(spawned.hostPid)) process.kill(spawned.hostPid, 'SIGTERM');
      await waitFor('the host to end', () => !processExists(spawned.hostPid), { timeoutMs: 10_000 });
    },
  };
}

/** Everything a connection receives: output as text, and its frames. */
export function listen(connection: HostConnection): {
  output: () => string;
  frames: Array<{ type: string }>;
} {
  let output = '';
  const frames: Array<{ type: string }> = [];
  connection.onOutput((chunk) => (output += chunk.toString('utf8')));
  connection.onFrame((frame) => frames.push(frame));
  connection.start();
  return { output: () => output, frames };
}

export const hostFile = (dataDir: string, name: string) => path.join(dataDir, 'terminals', name);

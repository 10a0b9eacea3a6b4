import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newUserKey } from '../../src/cluster/server-config.js';
import { cli } from '../support/cli-under-pty.js';
import { NATS_SERVER, NO_NATS, startNats } from '../support/nats-server.js';

let dir: string;
let env: Record<string, string>;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ab-cluster-cli-'));
  env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, AGENT_BRIDGE_HOME: path.join(dir, 'data') };
  mkdirSync(env.AGENT_BRIDGE_HOME!, { recursive: true });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const serve = (...args: string[]) => cli(['serve', '--no-terminal', '--no-web', ...args], env);
/** A hub with something to serve (its web UI on a free port), so it gets as far as NATS. */
const hub = (...args: string[]) => cli(['serve', '--no-terminal', '--port', '0', ...args], env);

function keyFile(mode = 0o600): string {
  const file = path.join(dir, 'me.nk');
  writeFileSync(file, newUserKey().seed + '\n', { mode });
  chmodSync(file, mode);
  return file;
}

describe('serve in a cluster: bad usage is said in one line (exit 2), before anything starts', () => {
  it('refuses --node and a key without --nats, --nats without a key, and URLs that are not NATS', async () => {
    expect(await serve('--node', 'laptop')).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/need --nats/),
    });
    expect(await serve('--nats', 'nats://127.0.0.1:4222')).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--nats-credentials <file>/),
    });
    const key = keyFile();
    for (const url of ['http://127.0.0.1:4222', 'nats://me:secret@127.0.0.1:4222'])
      expect(await serve('--nats', url, '--nats-credentials', key)).toMatchObject({
        code: 2,
        stderr: expect.stringMatching(/nats:\/\/host:4222|no password in the URL/),
      });
    expect(
      await serve('--nats', 'nats://127.0.0.1:4222', '--node', 'Bad.Name', '--nats-credentials', key),
    ).toMatchObject({ code: 2, stderr: expect.stringMatching(/cannot name a machine/) });
  });

  it('refuses a key file others can read, or one that holds no key', async () => {
    const open = keyFile(0o644);
    expect(await serve('--nats', 'nats://127.0.0.1:4222', '--nats-credentials', open)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining(`chmod 600 ${open}`),
    });
    writeFileSync(open, 'not a key\n', { mode: 0o600 });
    chmodSync(open, 0o600);
    expect(await serve('--nats', 'nats://127.0.0.1:4222', '--nats-credentials', open)).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/neither an nkey seed/),
    });
  });

  it("refuses chat channels on a node: they are the hub's", async () => {
    const key = keyFile();
    writeFileSync(
      path.join(env.AGENT_BRIDGE_HOME!, 'agent-bridge.yaml'),
      `channels:\n  telegram:\n    token: "1:x"\n    allowed_users: [1]\ncluster:\n  nats: nats://127.0.0.1:4222\n  node: laptop\n  credentials: ${key}\n`,
      { mode: 0o600 },
    );
    expect(await serve()).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/a node hosts no chat channels \(telegram/),
    });
  });

  it('refuses rate limits shared in Redis where there are no hubs to share them', async () => {
    const config = path.join(env.AGENT_BRIDGE_HOME!, 'agent-bridge.yaml');
    writeFileSync(config, 'defaults:\n  rate_limit: { redis: "redis://127.0.0.1:6379" }\n', { mode: 0o600 });
    expect(await serve()).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/between the hubs of a cluster: add cluster:/),
    });
    const key = keyFile();
    writeFileSync(
      config,
      `defaults:\n  rate_limit: { redis: "redis://127.0.0.1:6379" }\ncluster:\n  nats: nats://127.0.0.1:4222\n  node: laptop\n  credentials: ${key}\n`,
      { mode: 0o600 },
    );
    expect(await serve()).toMatchObject({ code: 2, stderr: expect.stringMatching(/redis is for hubs/) });
  });

  it('says when NATS cannot be reached (exit 1)', async () => {
    const result = await hub('--nats', 'nats://127.0.0.1:1', '--nats-credentials', keyFile());
    expect(result).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/cannot reach NATS at nats:\/\/127\.0\.0\.1:1/),
    });
  });
});

describe.skipIf(!NATS_SERVER)(`cluster init${NO_NATS}`, () => {
  it('writes a configuration nats-server takes and private keys; keeps them when run again', async () => {
    const out = path.join(dir, 'cluster');
    const first = await cli(
      ['cluster', 'init', '--node', 'laptop', '--node', 'buildbox', '-o', out, '--json'],
      env,
    );
    expect(first.code).toBe(0);
    const written = JSON.parse(first.stdout) as {
      config: string;
      keys: Array<{ name: string; file: string; kept: boolean }>;
    };
    expect(written.keys.map((k) => [k.name, k.kept])).toEqual([
      ['hub', false],
      ['laptop', false],
      ['buildbox', false],
    ]);
    for (const file of [written.config, ...written.keys.map((k) => k.file)])
      expect(statSync(file).mode & 0o777).toBe(0o600);
    const check = spawnSync(NATS_SERVER!, ['-c', written.config, '-t'], { encoding: 'utf8' });
    expect(check.status).toBe(0);
    const laptopKey = readFileSync(path.join(out, 'laptop.nk'), 'utf8');
    const again = await cli(['cluster', 'init', '--node', 'laptop', '-o', out], env);
    expect(again).toMatchObject({
      code: 0,
      stdout: expect.stringContaining(`kept  ${path.join(out, 'laptop.nk')}`),
    });
    expect(readFileSync(path.join(out, 'laptop.nk'), 'utf8')).toBe(laptopKey);
    // buildbox was left out: its key is no longer in the server's config.
    const buildboxKey = readFileSync(path.join(out, 'buildbox.nk'), 'utf8');
    expect(readFileSync(written.config, 'utf8')).not.toContain('# node buildbox');
    expect(buildboxKey).toMatch(/^SU/);
  });

  it('refuses what cannot work (exit 2)', async () => {
    expect(await cli(['cluster', 'init'], env)).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--node <name>/),
    });
    expect(await cli(['cluster', 'init', '--node', 'hub'], env)).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/named twice/),
    });
    expect(await cli(['cluster', 'init', '--node', 'a', '--tls-cert', 'x.pem'], env)).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/both --tls-cert and --tls-key/),
    });
  });

  it('a hub with a key the server does not list is refused, said in one line (exit 1)', async () => {
    const nats = await startNats({ nodes: ['laptop'] });
    try {
      const result = await hub('--nats', nats.url, '--nats-credentials', keyFile());
      expect(result).toMatchObject({
        code: 1,
        stderr: expect.stringMatching(/refused .*me\.nk.*cluster init/),
      });
    } finally {
      await nats.close();
    }
  });
});

describe.skipIf(!NATS_SERVER)(`doctor on a machine of a cluster${NO_NATS}`, () => {
  it('says whether the NATS server takes its key, with JetStream on; one machine alone gets no such line', async () => {
    const alone = await cli(['doctor', '--json'], env);
    expect(
      (JSON.parse(alone.stdout) as { checks: Array<{ id: string }> }).checks.map((c) => c.id),
    ).not.toContain('cluster');
    const nats = await startNats({ nodes: ['laptop'] });
    try {
      const config = (key: string) =>
        writeFileSync(
          path.join(env.AGENT_BRIDGE_HOME!, 'agent-bridge.yaml'),
          `cluster:\n  nats: ${nats.url}\n  node: laptop\n  credentials: ${key}\n`,
          { mode: 0o600 },
        );
      config(nats.keyFile('laptop'));
      const checks = async () =>
        (
          JSON.parse((await cli(['doctor', '--json'], env)).stdout) as {
            checks: Array<{ id: string; status: string; detail: string }>;
          }
        ).checks.find((c) => c.id === 'cluster');
      expect(await checks()).toMatchObject({
        status: 'ok',
        detail: expect.stringMatching(/takes node laptop's key; JetStream is on/),
      });
      config(keyFile());
      expect(await checks()).toMatchObject({ status: 'fail', detail: expect.stringMatching(/refused/) });
    } finally {
      await nats.close();
    }
  });
});

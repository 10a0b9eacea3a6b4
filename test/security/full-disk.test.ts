import {
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AsciicastWriter } from '../../src/store/asciicast-writer.js';
import { auditEntries, cli } from '../support/cli-under-pty.js';
import { FakeClock } from '../support/fake-clock.js';
import { ScriptWorld } from '../support/script-session.js';
import { TinyDisk } from '../support/tiny-disk.js';
import { waitFor } from '../support/wait.js';

// Issue 12, item 14: a prompt while the disk was full killed `run` and the agent; the recording ended
// silently; a 0-byte database was silently replaced by a new one, losing history. The agent never dies for
// our storage: say what failed, in the terminal and the audit, keep the session going, and refuse to start
// over an emptied database without saying so. Full disks here are real ones: a small tmpfs, filled.

/** Why a tmpfs cannot be mounted here (not root), or null when it can. */
const cannotMount = ((): string | null => {
  const probe = mkdtempSync(path.join(tmpdir(), 'ab-disk-probe-'));
  const disk = TinyDisk.mount(probe, '64k');
  if (typeof disk === 'string') {
    rmSync(probe, { recursive: true, force: true });
    return disk;
  }
  disk.unmount();
  return null;
})();
if (cannotMount) console.warn(`skipping the full-disk tests: ${cannotMount}`);

let world: ScriptWorld | null = null;
let disk: TinyDisk | null = null;
afterEach(async () => {
  disk?.unmount();
  disk = null;
  await world?.close();
  world = null;
});

function mounted(dir: string, size: string): TinyDisk {
  const result = TinyDisk.mount(dir, size);
  if (typeof result === 'string') throw new Error(result);
  disk = result;
  return result;
}

describe.skipIf(cannotMount !== null)('a full disk', () => {
  it('while a prompt appears: said in the terminal; the agent goes on and is answered there', async () => {
    world = new ScriptWorld();
    const full = mounted(world.env.AGENT_BRIDGE_HOME!, '16m');
    const run = world.run(
      'echo started; read -r x; read -r -p "Deploy now? (y/n) " a; echo "answer=$a"; sleep 30',
    );
    await run.waitForText('started');
    await waitFor('the session in the store', async () =>
      (await cli(['status', '--json'], world!.env)).stdout.includes('custom'),
    );
    full.fill();
    run.process.write('\r'); // the program goes on, and asks
    await run.waitForText('Deploy now?');
    await waitFor('the notice', () => run.transcript().includes('while storing a prompt'));
    expect(run.transcript()).toMatch(/could not write to .* while storing a prompt .*(space|full)/);
    run.process.write('y\r');
    await run.waitForText('answer=y');
    expect(run.exit).toBeNull();
  });

  it('under the recording: it says the recording stopped, in the terminal and the audit; the session goes on', async () => {
    world = new ScriptWorld();
    mounted(path.join(world.env.AGENT_BRIDGE_HOME!, 'recordings'), '256k');
    const run = world.run(
      "head -c 600000 /dev/zero | tr '\\0' x | fold -w 100; echo all-printed; read -r -p 'More? (y/n) ' a; echo got=$a; sleep 30",
    );
    await run.waitForText('More?', 60_000);
    // Recording writes are buffered (and done by the session host): the failure may be said after the question.
    await waitFor('the notice in the terminal', async () =>
      /while recording the terminal \(the recording stops here\): .*(space|full)/.test(run.transcript()),
    );
    await waitFor('the audit entry', async () =>
      (await auditEntries(world!.env)).find(
        (e) => e.event === 'STORAGE_FAILED' && String(e.what).startsWith('recording the terminal'),
      ),
    );
    run.process.write('y\r');
    await run.waitForText('got=y');
    expect(run.exit).toBeNull();
  });
});

describe.skipIf(cannotMount !== null)('a recording on a disk that fills up midway through a write', () => {
  it('is said stopped at once, not only when it closes (the part that fitted is no silent success)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ab-rec-disk-'));
    mounted(dir, '256k');
    const stopped: Error[] = [];
    const writer = new AsciicastWriter(
      path.join(dir, 'session.cast'),
      { width: 80, height: 24, timestamp: 0 },
      new FakeClock(),
      (error) => stopped.push(error),
    );
    // One event bigger than the disk: the recordings' thread writes it in one call, which takes what fits.
    writer.output(Buffer.alloc(600_000, 'x'));
    await waitFor('the recording said stopped', () => stopped[0]);
    expect(stopped[0]!.message).toMatch(/no space|ENOSPC/i);
    await writer.close();
  });
});

describe.skipIf(cannotMount !== null)('a read-only disk', () => {
  it('at start: run refuses with one line saying where and what to do, starting nothing', async () => {
    world = new ScriptWorld();
    mounted(world.env.AGENT_BRIDGE_HOME!, '1m').readOnly();
    const refused = await cli(['run', 'custom', '--', 'touch', path.join(world.dir, 'ran')], world.env);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/cannot open agent-bridge's store in .*read-only.*AGENT_BRIDGE_HOME/);
    expect(existsSync(path.join(world.dir, 'ran'))).toBe(false);
  });
});

describe('an emptied or damaged database', () => {
  async function historyIn(): Promise<{ env: Record<string, string>; db: string }> {
    world = new ScriptWorld();
    const run = world.run('echo hello');
    await run.waitForExit();
    const db = path.join(world.env.AGENT_BRIDGE_HOME!, 'agent-bridge.db');
    expect(statSync(db).size).toBeGreaterThan(0);
    return { env: world.env, db };
  }

  it('at 0 bytes is refused with one line saying what happened and what to do, and is left as it is', async () => {
    const { env, db } = await historyIn();
    truncateSync(db, 0);
    for (const args of [['approvals'], ['run', 'custom', '--', 'true'], ['status']]) {
      const refused = await cli(args, env);
      expect(refused.code).toBe(1);
      expect(refused.stderr.trim().split('\n')).toHaveLength(1);
      expect(refused.stderr).toMatch(
        /agent-bridge\.db is empty \(0 bytes\).*will not start over.*move it aside|Move the empty file aside/i,
      );
    }
    expect(statSync(db).size).toBe(0);
  });

  it('overwritten with something else is refused the same way, and a backup is offered when there is one', async () => {
    const { env, db } = await historyIn();
    writeFileSync(`${db}.bak`, readFileSync(db));
    writeFileSync(db, 'this is not a database '.repeat(100));
    const refused = await cli(['approvals'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/cannot be read .*Restore the backup \(cp .*agent-bridge\.db\.bak/);
    expect(readFileSync(db, 'utf8')).toMatch(/^this is not a database/);
  });
});

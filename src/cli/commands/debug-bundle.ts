import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { arch, platform, release, tmpdir } from 'node:os';
import path from 'node:path';
import { findConfigFile } from '../../config/load.js';
import { lastLines } from '../../store/last-lines.js';
import { dataDir } from '../../store/paths.js';
import { AUDIT_FILE, openStore } from '../../store/store.js';
import { daemonLogFile } from '../daemon-log.js';
import { SecretScrubber } from '../debug/secret-scrubber.js';
import { CliFailure } from '../errors.js';
import { printJson, stdoutTarget, type OutputTarget } from '../output.js';
import { doctorCommand } from './doctor.js';
import { packageFile } from '../../package-files.js';

export interface DebugBundleOptions {
  output?: string;
  config?: string;
  auditLines: number;
  json?: boolean;
}

/** Lines of serve's log to include (its end). */
const LOG_LINES = 1_000;

/**
 * `agent-bridge debug bundle`: a .tar.gz for a bug report. Everything in it passes the secret scrubber:
 * config values under secret keys, secret-looking environment variables and the web token are known and
 * hidden wherever they appear; generic rules catch the rest (keys and tokens in agent output).
 */
export async function debugBundleCommand(
  options: DebugBundleOptions,
  target: OutputTarget = stdoutTarget,
): Promise<number> {
  const dir = dataDir();
  const output = path.resolve(options.output ?? `agent-bridge-debug-${stamp()}.tar.gz`);
  if (existsSync(output)) throw new CliFailure(`${output} exists already: choose another with -o`);
  const scrubber = new SecretScrubber();
  scrubber.addEnvironment(process.env);
  const webToken = path.join(dir, 'web-token');
  if (existsSync(webToken)) scrubber.addKnown(readFileSync(webToken, 'utf8'));

  const parts = new Map<string, string>();
  parts.set('config.yaml', configPart(options.config, dir, scrubber));
  parts.set('versions.json', JSON.stringify(versions(), null, 2));
  parts.set('environment.txt', scrubber.environmentReport(process.env));
  parts.set('doctor.json', await doctorPart(options.config));
  parts.set('database.txt', databasePart(dir));
  parts.set('audit-tail.jsonl', await tailPart(path.join(dir, AUDIT_FILE), options.auditLines));
  parts.set('serve-log-tail.jsonl', await tailPart(daemonLogFile(dir), LOG_LINES));

  const staging = mkdtempSync(path.join(tmpdir(), 'agent-bridge-debug-'));
  try {
    const folder = path.join(staging, 'agent-bridge-debug');
    mkdirSync(folder, { mode: 0o700 });
    for (const [name, text] of parts)
      writeFileSync(path.join(folder, name), scrubber.scrub(text) + '\n', { mode: 0o600 });
    const tar = await import('tar');
    await tar.create({ gzip: true, file: output, cwd: staging, portable: true }, ['agent-bridge-debug']);
    chmodSync(output, 0o600); // it holds the shape of your setup: yours to share, not everyone's to read
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  const size = statSync(output).size;
  if (options.json) printJson(target, { file: output, bytes: size, contents: [...parts.keys()] });
  else
    target.write(
      `wrote ${output} (${Math.ceil(size / 1024)} KB): ${[...parts.keys()].join(', ')}\n` +
        'secrets are hidden, but look inside before you share it: tar -xzOf ' +
        path.basename(output) +
        ' | less\n',
    );
  return 0;
}

function configPart(explicit: string | undefined, dir: string, scrubber: SecretScrubber): string {
  let file: string | null;
  try {
    file = findConfigFile(explicit, dir);
  } catch (error) {
    return `# ${(error as Error).message}`;
  }
  if (!file) return '# no agent-bridge.yaml';
  return `# ${file}\n` + scrubber.scrubConfig(readFileSync(file, 'utf8'));
}

function versions(): Record<string, unknown> {
  const pkg = (name: string) => {
    try {
      const file = packageFile('node_modules', name, 'package.json');
      return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
    } catch {
      return null;
    }
  };
  const own = JSON.parse(readFileSync(packageFile('package.json'), 'utf8')) as {
    version: string;
    dependencies: Record<string, string>;
  };
  return {
    'agent-bridge': own.version,
    node: process.versions.node,
    platform: `${platform()} ${release()} ${arch()}`,
    dependencies: Object.fromEntries(Object.keys(own.dependencies).map((name) => [name, pkg(name)])),
  };
}

async function doctorPart(config: string | undefined): Promise<string> {
  let text = '';
  const capture: OutputTarget = { isTTY: false, env: {}, write: (chunk) => void (text += chunk) };
  await doctorCommand({ ...(config ? { config } : {}), host: '127.0.0.1', port: 7600, json: true }, capture);
  return text.trim();
}

/** The schema and how many rows each table holds: enough to see its shape, none of its contents. */
function databasePart(dir: string): string {
  const store = openStore({ dir });
  try {
    const tables = store.db
      .prepare(
        "SELECT name, sql FROM sqlite_master WHERE type IN ('table', 'index') AND sql IS NOT NULL ORDER BY name",
      )
      .all() as Array<{ name: string; sql: string }>;
    const counts = tables
      .filter((table) => table.sql.startsWith('CREATE TABLE'))
      .map((table) => {
        const { rows } = store.db.prepare(`SELECT COUNT(*) AS rows FROM "${table.name}"`).get() as {
          rows: number;
        };
        return `-- ${table.name}: ${rows} rows`;
      });
    return [...counts, '', ...tables.map((table) => `${table.sql};`)].join('\n');
  } finally {
    store.close();
  }
}

async function tailPart(file: string, count: number): Promise<string> {
  if (!existsSync(file) || count === 0) return '';
  return (await lastLines(file, count)).lines.join('\n');
}

function stamp(): string {
  return new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
}

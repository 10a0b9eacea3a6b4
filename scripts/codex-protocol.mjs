// Generates the Codex app-server protocol types from the installed Codex (`codex app-server generate-ts`),
// as declaration files in src/drivers/structured/codex/protocol/ (not committed: they are the installed
// CLI's own; with its experimental fields, which it sends: `availableDecisions`). Run by `npm run build` and `npm run typecheck`; the driver imports types only.
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const codex = path.join(root, 'node_modules', '.bin', 'codex');
const target = path.join(root, 'src', 'drivers', 'structured', 'codex', 'protocol');
const scratch = mkdtempSync(path.join(tmpdir(), 'codex-protocol-'));

try {
  // Its own CODEX_HOME: generating types must not touch the user's Codex settings.
  mkdirSync(path.join(scratch, 'home'));
  execFileSync(codex, ['app-server', 'generate-ts', '--experimental', '--out', path.join(scratch, 'out')], {
    env: { ...process.env, CODEX_HOME: path.join(scratch, 'home') },
    stdio: 'pipe',
  });
  rmSync(target, { recursive: true, force: true });
  copyAsDeclarations(path.join(scratch, 'out'), target);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

/** `X.ts` → `X.d.ts` (type declarations, never emitted), relative imports given the `.js` ESM needs. */
function copyAsDeclarations(from, to) {
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(from)) {
    const source = path.join(from, name);
    if (statSync(source).isDirectory()) {
      copyAsDeclarations(source, path.join(to, name));
      continue;
    }
    if (!name.endsWith('.ts')) continue;
    const text = readFileSync(source, 'utf8').replace(/from "(\.{1,2}\/[^"]+)"/g, (_, spec) => {
      if (spec.endsWith('.js')) return `from "${spec}"`;
      const folder = existsSync(path.join(from, spec)) && statSync(path.join(from, spec)).isDirectory();
      return folder ? `from "${spec}/index.js"` : `from "${spec}.js"`;
    });
    writeFileSync(path.join(to, name.replace(/\.ts$/, '.d.ts')), text);
  }
}

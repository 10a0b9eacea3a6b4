// Builds the browser app into dist/web/: web/src/main.ts bundled by esbuild into app.js (with its source
// map), web/src/styles/index.css into styles.css, web/public/* copied as is (sw.js gets the build id), and
// @xterm/xterm's stylesheet as xterm.css. Run from the repository root: `node scripts/build-web.mjs`.
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const started = performance.now();
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist/web');
const require = createRequire(import.meta.url);

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

const common = {
  bundle: true,
  minify: true,
  sourcemap: true,
  target: 'es2022',
  logLevel: 'warning',
};

await Promise.all([
  build({
    ...common,
    entryPoints: [join(root, 'web/src/main.ts')],
    outfile: join(out, 'app.js'),
    platform: 'browser',
    format: 'esm',
    tsconfig: join(root, 'web/tsconfig.json'),
  }),
  build({
    ...common,
    entryPoints: [join(root, 'web/src/styles/index.css')],
    outfile: join(out, 'styles.css'),
  }),
]);

cpSync(join(root, 'web/public'), out, { recursive: true });
cpSync(require.resolve('@xterm/xterm/css/xterm.css', { paths: [root] }), join(out, 'xterm.css'));

// A new build id per content, so the service worker's cache of the old shell is dropped on update.
const hash = createHash('sha256');
for (const file of ['app.js', 'styles.css', 'xterm.css', 'index.html'])
  hash.update(readFileSync(join(out, file)));
const swPath = join(out, 'sw.js');
writeFileSync(swPath, readFileSync(swPath, 'utf8').replace('__BUILD_ID__', hash.digest('hex').slice(0, 12)));

console.log(`dist/web built in ${Math.round(performance.now() - started)} ms`);

// Bundles what the `agent-bridge` command runs into dist/bundle/ (after tsc wrote dist/): the command
// (dist/cli/main.js), each command's code split into chunks loaded when it runs, and the session host
// (host-main.js) and the recordings' thread (asciicast-worker.js), each a file of its own. Node then loads a
// few files where it loaded some three hundred modules (zod alone is 95), which was most of the start-up of
// `run` and of its session host. The entry names match their tsc names, so `new URL('./host-main.js',
// import.meta.url)` finds them from any chunk. Only the dependencies in BUNDLED are bundled; the others, and
// @xterm's CommonJS builds (loaded with createRequire), load from node_modules.
// Run from the repository root: `node scripts/bundle-cli.mjs`.
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const started = performance.now();
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist/bundle');
rmSync(out, { recursive: true, force: true });

/**
 * The dependencies bundled: the pure ES and CommonJS code every `run` loads, where loading it module by module
 * cost the most (zod is 95 modules, diff 19). Every other package is loaded from node_modules as it is: native
 * addons, and the chat, web and cluster libraries `serve` loads (some rely on how Node loads their CommonJS:
 * grammY's Bot, bundled, is not a constructor).
 */
const BUNDLED = new Set(['zod', 'diff', 'commander', 'ws']);

/** Packages outside BUNDLED stay imports of node_modules. */
const dependenciesOutside = {
  name: 'dependencies-outside',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, ({ path }) => {
      if (path.startsWith('node:')) return { path, external: true };
      const name = path.startsWith('@') ? path.split('/').slice(0, 2).join('/') : path.split('/')[0];
      return BUNDLED.has(name) ? undefined : { path, external: true };
    });
  },
};

const common = {
  outdir: out,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  plugins: [dependenciesOutside],
  // CommonJS dependencies call require() for Node's own modules: an ES module has none of its own.
  banner: {
    js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
  },
  legalComments: 'none',
  logLevel: 'warning',
};

await Promise.all([
  // The command: each command's code in chunks of its own, loaded when it runs.
  build({
    ...common,
    // `early` is what bin/agent-bridge.js runs before it loads `main` (a host for `run` starts sooner); one
    // build, so both share the chunk of the session host's spawner, and `run` takes the host `early` started.
    entryPoints: { main: join(root, 'dist/cli/main.js'), early: join(root, 'dist/cli/early-start.js') },
    splitting: true,
    chunkNames: 'chunk-[hash]',
  }),
  // Processes of their own, each one file with only what it uses (shaken on its own: the session host takes
  // ~50 KB of zod, where shared chunks would bring all of it).
  build({
    ...common,
    entryPoints: {
      'host-main': join(root, 'dist/sessions/host/host-main.js'),
      'asciicast-worker': join(root, 'dist/store/asciicast-worker.js'),
    },
  }),
]);

console.log(`dist/bundle built in ${Math.round(performance.now() - started)} ms`);

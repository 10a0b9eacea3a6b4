// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Layers of src/ and what each may not import: dependencies point inward (see DESIGN.md). */
const layerRules = {
  core: ['agents', 'drivers', 'channels', 'sessions', 'store', 'config', 'cli', 'cluster'],
  agents: ['drivers', 'channels', 'sessions', 'store', 'config', 'cli', 'cluster'],
  drivers: ['agents', 'channels', 'sessions', 'config', 'cli', 'cluster'],
  channels: ['agents', 'drivers', 'sessions', 'cli', 'cluster'],
  store: ['agents', 'drivers', 'channels', 'sessions', 'config', 'cli', 'cluster'],
  config: ['agents', 'drivers', 'channels', 'sessions', 'store', 'cli', 'cluster'],
  sessions: ['cli', 'cluster'],
  // Many machines: composes sessions and the store over NATS, like sessions composes drivers and channels.
  cluster: ['cli'],
};

/** @param {string} layer @param {string[]} forbidden */
function layerConfig(layer, forbidden) {
  const patterns = forbidden.flatMap((other) => [`../${other}/*`, `../../${other}/*`, `../../../${other}/*`]);
  /** @type {Record<string, unknown>} */
  const restriction = {
    patterns: [
      {
        group: patterns,
        message: `src/${layer} may not import these layers (DESIGN.md: dependencies point inward).`,
      },
    ],
  };
  if (layer === 'core') {
    restriction.paths = [
      'node:fs',
      'node:fs/promises',
      'node:child_process',
      'node:net',
      'node:http',
      'node-pty',
    ].map((name) => ({
      name,
      message: 'src/core is pure: no I/O.',
    }));
  }
  return { files: [`src/${layer}/**/*.ts`], rules: { 'no-restricted-imports': ['error', restriction] } };
}

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      'web/dist/**',
      '.bench-out/**',
      // Generated from the installed Codex by scripts/codex-protocol.mjs.
      'src/drivers/structured/codex/protocol/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'max-lines': ['warn', { max: 600, skipBlankLines: true, skipComments: true }],
      'max-lines-per-function': ['warn', { max: 80, skipBlankLines: true, skipComments: true, IIFEs: true }],
    },
  },
  { files: ['test/**/*.ts', 'bench/**/*.ts'], rules: { 'max-lines-per-function': 'off' } },
  ...Object.entries(layerRules).map(([layer, forbidden]) => layerConfig(layer, forbidden)),
);

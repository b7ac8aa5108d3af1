import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The directions in docs/architecture.md, enforced. Later blocks override earlier ones for
// the same rule, so the narrowest folders come last.
const CORE_BANS = ['dockerode', 'electron'];

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'out/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Only engine/ talks to Docker; the core never imports Electron so it runs under plain Node.
    files: ['electron/main/**/*.ts'],
    ignores: ['electron/main/engine/**', 'electron/main/index.ts', 'electron/main/ipc/**'],
    rules: { 'no-restricted-imports': ['error', { paths: CORE_BANS }] },
  },
  {
    // Pure policy: decisions only, no I/O (tests next to it may use what they like).
    files: ['electron/main/policy/**/*.ts'],
    ignores: ['electron/main/policy/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [...CORE_BANS, 'better-sqlite3', 'node:fs', 'node:fs/promises', 'node:child_process', 'node:net', 'node:http', 'fs', 'child_process'],
          patterns: ['../engine/*', '../store/*', '../sandbox/*', '../workspace/*'],
        },
      ],
    },
  },
  {
    // shared/ is the contract: neither Node, nor Electron, nor anything of main or the renderer.
    files: ['shared/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: ['node:*', 'electron', 'dockerode', 'better-sqlite3', '../electron/*', '../renderer/*'] }] },
  },
  {
    // The renderer is untrusted web content: it reaches main only through the contract (its
    // api/ layer), never Electron, Node or main's code.
    files: ['renderer/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: ['electron'], patterns: ['electron/*', '../electron/*', '**/electron/**', 'node:*', 'dockerode', 'better-sqlite3'] },
      ],
    },
  },
  {
    // Plain Node scripts.
    files: ['scripts/**/*.mjs'],
    languageOptions: { globals: { console: 'readonly', process: 'readonly' } },
  },
);

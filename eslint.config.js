import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
    // The directions in docs/architecture.md: shared/ is the contract and imports neither Node nor Electron.
    files: ['shared/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['node:*', 'electron', 'dockerode', 'better-sqlite3', '../electron/*', '../renderer/*'] }],
    },
  },
  {
    // Pure policy: decisions only, no I/O.
    files: ['electron/main/policy/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['node:fs', 'node:fs/*', 'node:child_process', 'node:net', 'dockerode', 'better-sqlite3', 'electron', '../engine/*', '../store/*', '../sandbox/*', '../workspace/*'] }],
    },
  },
  {
    // Only engine/ talks to Docker; the core never imports Electron so it runs under plain Node.
    files: ['electron/main/**/*.ts'],
    ignores: ['electron/main/engine/**', 'electron/main/index.ts', 'electron/main/ipc/**'],
    rules: {
      'no-restricted-imports': ['error', { paths: ['dockerode', 'electron'] }],
    },
  },
);

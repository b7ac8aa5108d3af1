import js from '@eslint/js';
import tseslint from 'typescript-eslint';

import reactHooks from 'eslint-plugin-react-hooks';
import local from './eslint-rules/layering.mjs';

// The directions in docs/architecture.md, enforced by `local/layering` for every file of every
// zone below (first match wins, so single files come before their folder). A zone may import
// itself and the zones under `may`; bare imports only from `packages` (minus `deny`). Keep this
// table and the one in docs/architecture.md the same; test/unit/layering.test.ts tries every
// forbidden direction against it.
// Main may use Node and zod (the contract's checker) everywhere; other packages only where listed.
const NODE_ONLY = ['node:*', 'zod'];
const NOT_IN_PAGES = ['node:*', 'electron', 'dockerode', 'better-sqlite3', 'ws', 'ssh2', 'tar-fs'];
const BELOW_SANDBOX = ['main/folders', 'main/review', 'main/workspace', 'main/sessions', 'main/store', 'main/engine', 'main/policy', 'main/base', 'shared'];
export const LAYERS = {
  // The contract: neither Node, nor Electron, nor anything of main or the renderer.
  shared: { files: ['shared/'], may: [], packages: ['zod'] },
  // Main, bottom up.
  'main/base': { files: ['electron/main/base/', 'electron/main/events', 'electron/main/messages'], may: ['shared'], packages: NODE_ONLY },
  // Pure decisions: no I/O, so everything that decides is testable without Docker.
  'main/policy': { files: ['electron/main/policy/'], may: ['shared'], packages: ['node:path', 'node:crypto'] },
  'main/store': { files: ['electron/main/store/'], may: ['main/policy', 'main/base', 'shared'], packages: [...NODE_ONLY, 'better-sqlite3'] },
  // The only module that talks to Docker.
  // ssh2: ssh:// engines over one kept SSH connection (engine/sshTransport.ts), as docker-modem does.
  'main/engine': { files: ['electron/main/engine/'], may: ['main/policy', 'main/base', 'shared'], packages: [...NODE_ONLY, 'dockerode', 'ssh2'] },
  'main/sessions': { files: ['electron/main/sessions/'], may: ['main/store', 'main/policy', 'main/base', 'shared'], packages: NODE_ONLY },
  // tar-fs: a remote engine's folder copies go there and back as tar archives (workspace/remoteCopy.ts).
  'main/workspace': { files: ['electron/main/workspace/'], may: ['main/sessions', 'main/store', 'main/engine', 'main/policy', 'main/base', 'shared'], packages: [...NODE_ONLY, 'tar-fs'] },
  // A chat's folders: the attachment record, its Review copies' life, the mount plan's input. Below the sandbox that asks it.
  'main/folders': { files: ['electron/main/folders/'], may: ['main/review', 'main/workspace', 'main/sessions', 'main/store', 'main/engine', 'main/policy', 'main/base', 'shared'], packages: NODE_ONLY },
  // Review copies (the review branch): git and the copies' folders, below the sandbox that mounts them.
  'main/review': { files: ['electron/main/review/'], may: ['main/policy', 'main/base', 'shared'], packages: NODE_ONLY },
  // Egress (README: Network egress): each allowlist profile's filtering proxy and the sandboxes' sealed networks, through the engine.
  'main/egress': { files: ['electron/main/egress/'], may: ['main/engine', 'main/policy', 'main/base', 'shared'], packages: NODE_ONLY },
  // Ports: each chat's listening ports and their forwards to 127.0.0.1, relayed through the engine.
  'main/ports': { files: ['electron/main/ports/'], may: ['main/engine', 'main/policy', 'main/base', 'shared'], packages: NODE_ONLY },
  'main/sandbox': { files: ['electron/main/sandbox/'], may: BELOW_SANDBOX, packages: NODE_ONLY },
  'main/terminal': { files: ['electron/main/terminal/'], may: ['main/sandbox', ...BELOW_SANDBOX], packages: NODE_ONLY },
  // The provider client: the only code that speaks to a model's server (the OpenAI SDK).
  'main/agent/provider': { files: ['electron/main/agent/provider/'], may: ['shared'], packages: [...NODE_ONLY, 'openai', 'eventsource-parser'] },
  // Project environments: a folder's devcontainer.json (JSON with comments), its build context (.dockerignore), prepared through the sandbox.
  'main/environment': { files: ['electron/main/environment/'], may: ['main/sandbox', 'main/egress', ...BELOW_SANDBOX], packages: [...NODE_ONLY, 'jsonc-parser', '@balena/dockerignore'] },
  // MCP servers in the sandbox: the official MCP SDK over an engine exec's streams.
  'main/agent/mcp': { files: ['electron/main/agent/mcp/'], may: ['main/agent/provider', 'main/engine', 'main/policy', 'shared'], packages: [...NODE_ONLY, '@modelcontextprotocol/sdk'] },
  'main/agent': { files: ['electron/main/agent/'], may: ['main/agent/mcp', 'main/agent/provider', 'main/sandbox', ...BELOW_SANDBOX], packages: NODE_ONLY },
  // Forks: a chat forked at a turn (its conversation, copies and home) and Try again's message, calling review/ and the agent down.
  'main/forks': { files: ['electron/main/forks/'], may: ['main/agent', 'main/sandbox', ...BELOW_SANDBOX], packages: NODE_ONLY },
  // The composition root builds everything below the transports.
  'main/core': { files: ['electron/main/core', 'electron/main/core/'], may: ['main/environment', 'main/forks', 'main/agent', 'main/agent/mcp', 'main/agent/provider', 'main/terminal', 'main/sandbox', 'main/egress', 'main/ports', ...BELOW_SANDBOX], packages: NODE_ONLY },
  // Transports: the browser host and Electron's IPC (the only main code with Electron).
  'main/host': { files: ['electron/main/host/'], may: ['main/core', 'main/agent', 'main/policy', 'main/base', 'shared'], packages: [...NODE_ONLY, 'ws'] },
  'main/ipc-protocol': { files: ['electron/main/ipc/protocol'], may: ['shared'], packages: [] },
  'main/ipc': { files: ['electron/main/ipc/'], may: ['main/ipc-protocol', 'main/core', 'main/agent', 'main/policy', 'main/base', 'shared'], packages: [...NODE_ONLY, 'electron'] },
  'main/index': { files: ['electron/main/index'], may: ['main/ipc', 'main/ipc-protocol', 'main/core', 'main/agent', 'main/policy', 'main/base', 'shared'], packages: [...NODE_ONLY, 'electron'] },
  // The preload: channel names and the contract, nothing else of main.
  preload: { files: ['electron/preload/index', 'electron/preload/bridge'], may: ['main/ipc-protocol', 'shared'], packages: ['electron'] },
  // The renderer is untrusted web content: it reaches main only through the contract (api/).
  'renderer/api': { files: ['renderer/api/'], may: ['shared'], packages: ['*'], deny: NOT_IN_PAGES },
  'renderer/stores': { files: ['renderer/stores/'], may: ['renderer/api', 'shared'], packages: ['*'], deny: NOT_IN_PAGES },
  'renderer/ui': { files: ['renderer/ui/'], may: ['renderer/api', 'shared'], packages: ['*'], deny: NOT_IN_PAGES },
  // The app's services (the API, the stores) as React context: below features and app/, so a
  // feature never imports the app that composes it.
  'renderer/services': { files: ['renderer/services/'], may: ['renderer/stores', 'renderer/api', 'shared'], packages: ['*'], deny: NOT_IN_PAGES },
  'renderer/features': { files: ['renderer/features/'], may: ['renderer/services', 'renderer/ui', 'renderer/stores', 'renderer/api', 'shared'], packages: ['*'], deny: NOT_IN_PAGES },
  'renderer/app': { files: ['renderer/app/'], may: ['renderer/features', 'renderer/services', 'renderer/ui', 'renderer/stores', 'renderer/api', 'shared'], packages: ['*'], deny: NOT_IN_PAGES },
  'renderer/entry': { files: ['renderer/main', 'renderer/styles.css'], may: ['renderer/app', 'renderer/features', 'renderer/services', 'renderer/ui', 'renderer/stores', 'renderer/api', 'shared'], packages: ['*'], deny: NOT_IN_PAGES },
  'renderer/test': { files: ['renderer/test/'], may: ['renderer/services', 'renderer/stores', 'renderer/api', 'shared'], packages: ['*'], deny: NOT_IN_PAGES },
};

const LAYERING = {
  root: import.meta.dirname,
  layers: LAYERS,
  // A dependency's documented entry points; anything else inside a package is its internals.
  subpaths: ['react-dom/client', 'zustand/vanilla', '@xterm/xterm/css/xterm.css', 'react-diff-view/style/index.css', 'vitest/config',
    // The MCP SDK's documented entry points are its subpaths (its README imports them so).
    '@modelcontextprotocol/sdk/client/index.js', '@modelcontextprotocol/sdk/client/streamableHttp.js', '@modelcontextprotocol/sdk/shared/transport.js', '@modelcontextprotocol/sdk/shared/stdio.js', '@modelcontextprotocol/sdk/types.js'],
  // Tests and their doubles may use any package and the test support folders, but no other upward import.
  testFiles: ['\\.test\\.tsx?$', '/testDoubles\\.ts$', '/testClient\\.ts$'],
  // A feature's own decisions sit beside it in a common/ folder: no I/O, as policy/ (which keeps
  // the decisions several features share). Keyed on the folder's name wherever it is.
  pure: { folder: 'common', may: ['electron/main/policy/', 'shared/'], packages: ['node:path', 'node:crypto', 'zod'] },
  testMay: ['test/support/', 'renderer/test/', 'scripts/', 'electron/main/ipc/testDoubles', 'electron/preload/bridge'],
  // One folder per feature: from outside it, only its index.ts (what it offers the others).
  slices: ['renderer/features/'],
};

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
    files: ['**/*.{ts,tsx,mts,mjs}'],
    plugins: { local },
    rules: { 'local/layering': ['error', LAYERING] },
  },
  {
    // React's own check that hooks run in the same order every render: a hook after an early
    // return once threw React error 310 in the Review e2e (ForkActions), which no unit test hit.
    files: ['renderer/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error' },
  },
  {
    // One way in for every intent (GitHub Desktop's dispatcher, kept per feature): a feature's
    // components and hooks call its actions (features/<name>/actions.ts, through useActions),
    // which alone hold the API; stores hold it for what they load.
    files: ['renderer/features/**/*.{ts,tsx}'],
    ignores: ['renderer/features/**/actions.ts', '**/*.test.{ts,tsx}'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "VariableDeclarator[init.callee.name='useServices'] > ObjectPattern > Property[key.name='api']",
          message: "Call the feature's actions (features/<name>/actions.ts, through useActions), not the API.",
        },
        {
          selector: "MemberExpression[object.callee.name='useServices'][property.name='api']",
          message: "Call the feature's actions (features/<name>/actions.ts, through useActions), not the API.",
        },
      ],
    },
  },
  {
    // Plain Node scripts.
    files: ['scripts/**/*.mjs'],
    languageOptions: { globals: { console: 'readonly', process: 'readonly' } },
  },
);

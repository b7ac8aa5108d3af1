/**
 * Bundles the preload to one CommonJS file, dist/electron/preload/index.cjs: with
 * `sandbox: true` a preload runs as a plain script whose `require` knows only 'electron' and a
 * few Node built-ins, never its own modules. Run by `npm run build:electron`.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  publicDir: false,
  logLevel: 'warn',
  build: {
    outDir: path.resolve(here, '../../dist/electron/preload'),
    emptyOutDir: true,
    target: 'chrome130',
    minify: false,
    sourcemap: false,
    lib: {
      entry: path.resolve(here, 'index.ts'),
      formats: ['cjs'],
      fileName: () => 'index.cjs',
    },
    rollupOptions: { external: ['electron'] },
  },
});

import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The renderer: a static bundle served under a strict CSP (no inline scripts, no eval), loaded by
// Electron from disk (hence relative asset URLs) or by the browser host over HTTP.
// `npm run dev:renderer` proxies /rpc to a running browser host at BERTH_HOST (http://127.0.0.1:port).
const host = process.env['BERTH_HOST'];

export default defineConfig({
  root: fileURLToPath(new URL('./renderer', import.meta.url)),
  base: './',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('./dist/renderer', import.meta.url)),
    emptyOutDir: true,
    sourcemap: true,
    target: 'es2022',
    // One chunk for a desktop app loaded from disk: React and xterm.js are most of it.
    chunkSizeWarningLimit: 1024,
  },
  server: host === undefined ? {} : { proxy: { '/rpc': { target: host, ws: true } } },
});

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
    // A few chunks for a desktop app loaded from disk: the terminal and the conversation's
    // Markdown and highlighting each bring a large library of their own.
    chunkSizeWarningLimit: 1024,
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            { name: 'xterm', test: /[\\/]node_modules[\\/]@xterm[\\/]/ },
            { name: 'markdown', test: /[\\/]node_modules[\\/](react-markdown|remark-|rehype-|micromark|mdast-|hast-|unist-|unified|lowlight|highlight\.js|vfile|property-information|space-separated-tokens|comma-separated-tokens|decode-named-character-reference|character-entities|trim-lines|zwitch|bail|trough|devlop|ccount|markdown-table|escape-string-regexp|html-url-attributes|longest-streak|is-plain-obj|estree-util|style-to)/ },
          ],
        },
      },
    },
  },
  server: host === undefined ? {} : { proxy: { '/rpc': { target: host, ws: true } } },
});

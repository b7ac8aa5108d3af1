// better-sqlite3 is a native module built for one runtime at a time: Node (tests, browser
// host) or Electron (`npm start` rebuilds it for Electron). This puts the Node build back
// when it is missing, so `npm test` works after `npm start`.
import { execSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
try {
  const Database = require('better-sqlite3');
  new Database(':memory:').close();
} catch (error) {
  if (!/NODE_MODULE_VERSION|was compiled against a different Node.js version|invalid ELF|Module did not self-register/.test(String(error))) throw error;
  console.error('ensure-native: better-sqlite3 is built for Electron; rebuilding it for Node…');
  execSync('npm rebuild better-sqlite3', { stdio: 'inherit' });
}

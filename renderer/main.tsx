/** The renderer's composition root: pick the transport, build the stores, start syncing, render. */
import './styles.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createApi } from './api';
import { App } from './app/App';
import { AppProvider } from './app/context';
import { activeTerminalId } from './app/shortcuts';
import { TerminalOutputHub } from './features/terminals/outputHub';
import { installTestHook } from './features/terminals/registry';
import { createStores, startSync } from './stores';

const { api, connection, reconnectNow } = createApi(window);
const stores = createStores(api, connection);
const output = new TerminalOutputHub(api);
startSync(stores, api, connection);
// Test hook (window.__berthTest): end-to-end tests read terminal text through it.
installTestHook(window, () => activeTerminalId(stores));

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');
createRoot(root).render(
  <StrictMode>
    <AppProvider services={{ api, stores, output, reconnectNow }}>
      <App />
    </AppProvider>
  </StrictMode>,
);

/** The renderer's composition root: pick the transport, build the stores, start syncing, render. */
import './styles.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createApi } from './api';
import { App } from './app/App';
import { createApprovalNotifier } from './app/notifications';
import { localSelectionMemory } from './app/selectionMemory';
import { activeTerminalId } from './app/shortcuts';
import { TerminalOutputHub, TerminalScreensProvider, installTestHook, TerminalSessions, XtermSession } from './features/terminals';
import { AppProvider } from './services/context';
import { afterNextFrame, createStores, startSync } from './stores';

const { api, connection, reconnectNow } = createApi(window);
const stores = createStores(api, connection, localSelectionMemory(window.localStorage));
const output = new TerminalOutputHub(api);
const terminalSessions = new TerminalSessions<XtermSession>({
  terminals: stores.terminals,
  epoch: { get: () => stores.connection.getState().epoch, subscribe: (fn) => stores.connection.subscribe(fn) },
  document,
  later: afterNextFrame,
  create: (element, terminalId, initialSize) =>
    new XtermSession(element, { api, output, terminalId, initialSize, onSize: (size) => stores.terminals.getState().setLastSize(size) }),
});
// The browser host notifies from the page; the desktop app's main process does it by itself.
const notifier = connection.get().transport === 'ws' ? createApprovalNotifier(window, (chatId) => stores.chats.getState().select(chatId)) : null;
startSync(stores, api, connection, {
  deferSelectionLoad: afterNextFrame,
  onApproval: notifier
    ? (request) => notifier.approvalNeeded(request, stores.chats.getState().chats.find((c) => c.id === request.chatId)?.title ?? null)
    : undefined,
});
// Test hook (window.__berthTest): end-to-end tests read terminal text through it.
installTestHook(window, () => activeTerminalId(stores));

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');
createRoot(root).render(
  <StrictMode>
    <AppProvider services={{ api, stores, reconnectNow, askToNotify: notifier ? () => notifier.ask() : undefined, later: afterNextFrame }}>
      <TerminalScreensProvider sessions={terminalSessions}>
        <App />
      </TerminalScreensProvider>
    </AppProvider>
  </StrictMode>,
);

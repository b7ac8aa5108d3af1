/** The Ports view's calls to main: components call these, never the API. */
import type { BerthApi } from '../../api/types';

export function portsActions(api: BerthApi) {
  return {
    /** The project environment's forwardPorts, with their portsAttributes labels. */
    declared: async (chatId: string) => (await api.call('environment.detect', { chatId })).status.ports,
    list: (chatId: string) => api.call('ports.list', { chatId }),
    open: (chatId: string, port: number) => api.call('ports.open', { chatId, port }),
    close: (chatId: string, port: number) => api.call('ports.close', { chatId, port }),
  };
}

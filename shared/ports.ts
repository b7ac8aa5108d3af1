/**
 * Ports: what a chat's sandbox listens on, and the forwards that open one in the user's browser
 * through Berth (README: Ports). Imported by contract.ts; no Node or DOM APIs.
 */
import { z } from 'zod';

const ChatIdField = z.string().min(1).max(256);
const PortField = z.number().int().min(1).max(65535);

export const PortForward = z.object({
  /** The port in the sandbox. */
  port: z.number().int(),
  /** Where the browser opens it: http://127.0.0.1:<hostPort>/ with the secret that lets it in once. */
  url: z.string(),
  hostPort: z.number().int(),
});
export type PortForward = z.infer<typeof PortForward>;

export const ListeningPortView = z.object({
  port: z.number().int(),
  /** Its forward, when one is open. */
  forward: PortForward.nullable(),
});
export type ListeningPortView = z.infer<typeof ListeningPortView>;

export const portsMethods = {
  /**
   * The ports the chat's sandbox listens on now (read inside it, as /proc/net/tcp and tcp6 show
   * them), each with its forward when one is open; `running` is false when no sandbox runs.
   */
  'ports.list': {
    request: z.object({ chatId: ChatIdField }).strict(),
    response: z.object({ running: z.boolean(), ports: z.array(ListeningPortView) }),
  },
  /** Opens (or returns the open) forward of a port in the chat's sandbox, on 127.0.0.1 only. */
  'ports.open': { request: z.object({ chatId: ChatIdField, port: PortField }).strict(), response: PortForward },
  /** Ends a port's forward; `closed` is false when none was open. */
  'ports.close': { request: z.object({ chatId: ChatIdField, port: PortField }).strict(), response: z.object({ closed: z.boolean() }) },
} as const;

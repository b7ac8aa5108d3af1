/**
 * Project environments: a folder's devcontainer.json, prepared once as a local image and used
 * by its chats (README: Environments). Imported by contract.ts; no Node or DOM APIs.
 */
import { z } from 'zod';

const ChatIdField = z.string().min(1).max(256);

export const EnvironmentIgnored = z.object({ key: z.string(), reason: z.string() });

export const EnvironmentStatus = z.object({
  chatId: z.string(),
  /** none: the profile's image; preparing: building or running its create-time commands. */
  state: z.enum(['none', 'preparing', 'ready', 'failed']),
  /** The attached folder and the devcontainer.json in it (a path inside the folder). */
  folder: z.string().nullable(),
  source: z.string().nullable(),
  /** The prepared image, when and how big (bytes, as the engine counts the image). */
  image: z.string().nullable(),
  preparedAt: z.number().nullable(),
  sizeBytes: z.number().nullable(),
  /** True when this chat started from an image prepared before (no build). */
  reused: z.boolean(),
  /** Keys of the file Berth did not honour, each with why. */
  ignored: z.array(EnvironmentIgnored),
  /** What else the chat should know (a user run under another uid, a start folder that is missing). */
  notes: z.array(z.string()),
  /** forwardPorts with their portsAttributes labels. */
  ports: z.array(z.object({ port: z.number().int(), label: z.string().nullable() })),
  workspaceFolder: z.string().nullable(),
  error: z.object({ message: z.string(), hint: z.string().nullable() }).nullable(),
});
export type EnvironmentStatus = z.infer<typeof EnvironmentStatus>;

export const EnvironmentOffer = z.object({
  /** An attached folder holding devcontainer files. */
  folder: z.string(),
  /** Their paths inside it, in the spec's order. */
  configs: z.array(z.string()),
  /** The one the user chose for this folder before (remembered per folder), if any. */
  remembered: z.string().nullable(),
});

export const environmentMethods = {
  /** The chat's attached folders that hold a devcontainer.json, and its environment's status. */
  'environment.detect': {
    request: z.object({ chatId: ChatIdField }).strict(),
    response: z.object({ offers: z.array(EnvironmentOffer), status: EnvironmentStatus }),
  },
  /**
   * Uses a folder's devcontainer.json for the chat: reuses the image prepared from the same
   * files, or builds and prepares it (progress as sandbox.progress, status as
   * environment.status), then runs its start commands. Remembered for the folder.
   */
  'environment.use': {
    request: z.object({ chatId: ChatIdField, folder: z.string().min(1).max(4096), config: z.string().min(1).max(1024) }).strict(),
    response: EnvironmentStatus,
  },
  /** Builds and prepares the chat's environment again, whatever was prepared before. */
  'environment.rebuild': { request: z.object({ chatId: ChatIdField }).strict(), response: EnvironmentStatus },
  /** How many prepared environment images Berth keeps (older ones are removed); `keep` sets it. */
  'environment.settings': {
    request: z.object({ keep: z.number().int().min(1).max(100).optional() }).strict(),
    response: z.object({ keep: z.number().int() }),
  },
} as const;

export const environmentEvents = {
  'environment.status': EnvironmentStatus,
} as const;

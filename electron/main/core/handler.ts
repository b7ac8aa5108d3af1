/** The shape of a contract method's handler, and the helpers every namespace's handlers share. */
import type { MethodName, ParsedRequest, Response } from '../../../shared/contract.js';
import type { Services } from './services.js';

/** Who is calling: a connected client (a window, a browser tab), or Berth itself (null). */
export interface CallContext {
  client: string | null;
}

export type Handler<M extends MethodName> = (req: ParsedRequest<M>, ctx: CallContext) => Promise<Response<M>>;

/** The handlers of one contract namespace (`profiles`, `chats`, …): one per method it names. */
export type Handlers<G extends string> = { [M in MethodName as M extends `${G}.${string}` ? M : never]: Handler<M> };

/** Every contract method's handler: the handler modules together, checked complete by the compiler. */
export type HandlerTable = { [M in MethodName]: Handler<M> };

/** Tells clients to refetch their lists, then returns the result unchanged. */
export function changed<T>(s: Pick<Services, 'events'>, chatId: string | null, result: T): T {
  s.events.emit('chats.changed', { chatId });
  return result;
}

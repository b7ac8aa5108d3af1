/** workspace.*: attaching and detaching a chat's folders, and the folder browser. */
import { BerthError } from '../../../../shared/errors.js';
import { resolveAttachableFolder } from '../../workspace/folderValidation.js';
import { browseFolders } from '../../workspace/folderBrowser.js';
import { decideAttachConfirmation } from '../../policy/attachConfirmation.js';
import type { ParsedRequest } from '../../../../shared/contract.js';
import type { ConfirmedChange } from '../../folders/attachConfirmations.js';
import { FOLDER_MESSAGES, refusal } from '../../messages.js';
import { changed, type CallContext, type Handlers } from '../handler.js';
import type { Services } from '../services.js';

export function workspaceHandlers(s: Services): Handlers<'workspace'> {
  const { folders, sandbox, hostFacts, terminals, confirmations } = s;

  /** What the change would do and whether the user is asked first: main's one judgement, for the preview and for a change that came without a token. */
  const judge = async (req: ParsedRequest<'workspace.attachPreview'>) => {
    const effect = await sandbox.attachEffect(req);
    // Only a replaced container stops what runs: otherwise the terminals are not asked.
    const running = effect.recreates ? await terminals.busy(req.chatId).catch(() => []) : [];
    return { ...effect, running, ...decideAttachConfirmation({ ...effect, running }) };
  };

  /** The user's yes: the token redeemed, or, without one, a change that stops nothing. */
  const confirmed = async (ctx: CallContext, confirm: string | undefined, change: ConfirmedChange): Promise<void> => {
    if (confirm) return confirmations.redeem(ctx.client, confirm, change);
    const { needsConfirmation, summary } = await judge({ chatId: change.chatId, action: change.action, mode: change.mode, path: change.path });
    if (needsConfirmation) throw refusal('invalid_request', FOLDER_MESSAGES.confirmationNeeded(change.action, summary ?? ''));
  };

  return {
    'workspace.attach': async ({ confirm, ...req }, ctx) => {
      await confirmed(ctx, confirm, { chatId: req.chatId, action: 'attach', path: req.path, mode: req.mode });
      const { change, ...result } = await folders.attach(req);
      return changed(s, req.chatId, { ...result, notice: await sandbox.applyFolderChange(req.chatId, change) });
    },
    'workspace.detach': async ({ confirm, ...req }, ctx) => {
      await confirmed(ctx, confirm, { chatId: req.chatId, action: 'detach', path: req.path });
      const { change, ...result } = await folders.detach(req);
      return changed(s, req.chatId, { ...result, notice: await sandbox.applyFolderChange(req.chatId, change) });
    },
    'workspace.attachPreview': async (req, ctx) => {
      const judged = await judge(req);
      return { ...judged, token: judged.recreates ? confirmations.issue(ctx.client, req) : null };
    },
    'workspace.browse': async (req) =>
      browseFolders(req.path, (folder) => {
        try {
          resolveAttachableFolder(folder, hostFacts());
          return null;
        } catch (error) {
          return error instanceof BerthError ? error.message : String(error);
        }
      }),
  };
}

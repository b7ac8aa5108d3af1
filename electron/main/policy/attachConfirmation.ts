/**
 * Whether attaching or detaching a folder needs the user's yes, and what to tell them: decided
 * here once for every transport (the desktop window and the browser host ask the same question).
 * A change that keeps the running container, or replaces one in which nothing runs, goes ahead;
 * one that stops commands running in the chat's terminals is asked about first.
 */

/** A terminal with something running in it, as terminal.busy lists it. */
export interface RunningTerminal {
  terminalId: string;
  title: string;
  processes: string[];
}

export interface AttachEffectFacts {
  /** The chat's running container would be replaced. */
  recreates: boolean;
  /** Why, when it would. */
  reason: string | null;
  /** What runs in the chat's terminals now. */
  running: readonly RunningTerminal[];
}

export interface AttachDecision {
  /** The user is asked first: the change stops what runs. */
  needsConfirmation: boolean;
  /** One sentence on what the change does, or null when it changes nothing that runs. */
  summary: string | null;
}

export function decideAttachConfirmation(facts: AttachEffectFacts): AttachDecision {
  if (!facts.recreates) return { needsConfirmation: false, summary: null };
  const n = facts.running.length;
  const restarts = 'Restarts the chat’s sandbox';
  if (n === 0) return { needsConfirmation: false, summary: `${restarts}; nothing runs in its terminals.` };
  const what = facts.running.flatMap((t) => t.processes).slice(0, 3).join(', ');
  return { needsConfirmation: true, summary: `${restarts}, stopping what runs in ${n} terminal${n === 1 ? '' : 's'}${what ? ` (${what})` : ''}.` };
}

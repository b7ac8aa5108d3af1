import type { SandboxState } from '../../shared/contract';

/**
 * Sentences the page says to the user that are not main's own words (those come with main's
 * answers and errors): one place, so a wording is changed once and tests can name it.
 */
export const MESSAGES = {
  dismissNotice: 'Dismiss this notice',
  noFolder: 'No folder attached: the sandbox sees none of your files.',
  forkHere: 'Fork from here',
  forkHint: 'A new chat with the conversation up to this turn, the chat’s copies as this turn left them, and its own sandbox',
  forkPointHint: 'A new chat from just before the turn this restore point precedes (pick one made before an agent turn)',
  tryAgain: 'Try again in a new chat',
  tryAgainHint: 'Sends this message again in a new chat that starts from just before it, so you can compare the attempts',
  compareAttempts: 'Compare attempts',
  compareNone: 'No other chat of this profile has this folder in Review mode yet: use “Try again in a new chat” first.',
  compareUnchanged: 'Not changed',
  keepAttempt: 'Apply this attempt and close the others',
  sharedProvider: (profile: string) => `The same as “${profile}”`,
  sharedProviderNote: (profile: string) =>
    `Uses the provider URL and API key of the profile “${profile}”: change them there, and every profile sharing them follows. A model set here picks this profile’s model.`,
} as const;

/** A sandbox's state as the header and the terminal say it. */
export const SANDBOX_LABELS: Record<SandboxState, string> = {
  none: 'not started',
  building: 'building image',
  pulling: 'pulling image',
  creating: 'creating container',
  starting: 'starting',
  running: 'running',
  stopped: 'stopped',
  error: 'error',
  local: 'local (no sandbox)',
};

/** What the local backend (no sandbox) means, wherever it can be chosen or is in use. */
export const LOCAL_WARNING = 'no sandbox: commands run on this computer with your permissions';

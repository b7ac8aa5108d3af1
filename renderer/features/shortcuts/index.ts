/** What the shortcuts feature offers the app and the other features: the rest of its folder is its own. */
export { HelpPopover } from './HelpPopover';
export { APPROVAL_KEYS, matchShortcut } from './shortcuts';
export type { ShortcutId } from './shortcuts';

/** What the changes feature offers the app and the other features: the rest of its folder is its own. */
export { AttachModeDialog, DEFAULT_CHOICE, modeSentence } from './AttachModePicker';
export type { AttachChoice } from './AttachModePicker';
export { ChangedCountBadge } from './ChangedCountBadge';
export { ChangesButton, ChangesPanel } from './ChangesPanel';
export { CopyProgressLine } from './CopyProgressLine';
export { FileDiff } from './FileDiff';
export { ReviewCopySummary } from './ReviewCopySummary';
export { TurnChanges } from './TurnChanges';
export { changedFiles, unappliedLoss, useChangedCount } from './useChangedCount';

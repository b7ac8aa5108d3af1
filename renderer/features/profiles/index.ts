/** What the profiles feature offers the app and the other features: the rest of its folder is its own. */
export { ProfilesDialog } from './ProfilesDialog';

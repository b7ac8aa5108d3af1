/** What the compare feature offers the app and the other features: the rest of its folder is its own. */
export { ForkActions } from './ForkActions';
export { ForkFromPoint } from './ForkFromPoint';

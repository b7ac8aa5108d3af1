/** What the status feature offers the app and the other features: the rest of its folder is its own. */
export { ConnectionBanner } from './ConnectionBanner';
export { StatusBar } from './StatusBar';

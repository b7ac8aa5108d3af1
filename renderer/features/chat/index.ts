/** What the chat feature offers the app and the other features: the rest of its folder is its own. */
export { ChatHeader } from './ChatHeader';

/** What the conversation feature offers the app and the other features: the rest of its folder is its own. */
export { ConversationPane } from './ConversationPane';
export { focusConversation, focusNextOpenedChat, forgetFocusRequest } from './focusConversation';

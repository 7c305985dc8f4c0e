export { ConversationsModule } from './conversations.module.js';
export { ConversationsService, type ConversationView } from './conversations.service.js';
export { MAX_TITLE_CHARS, toTitle } from './conversation-title.js';

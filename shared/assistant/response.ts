import type { ConversationSummary } from '../model/conversation';
import type { StoredConversation } from './conversations';

/** A conversation as the API shows it, without its messages. */
export function conversationSummary(conversation: StoredConversation, active: boolean): ConversationSummary {
  return {
    conversation_id: conversation.conversation_id,
    created_date: conversation.created_date,
    last_modified_date: conversation.last_modified_date,
    message_count: conversation.message_count,
    active,
  };
}

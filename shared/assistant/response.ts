import type { ConversationMessage, ConversationSummary } from '../model/conversation';
import type { StoredConversation, StoredMessage } from './conversations';

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

/** A message as the API shows it: whether it was cut is said outright, not only by its length field. */
export function messageView(message: StoredMessage): ConversationMessage {
  return { ...message, truncated: message.original_chars !== undefined };
}

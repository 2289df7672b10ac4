import { activeConversationOf, conversations } from '../../shared/assistant/conversations';
import { conversationSummary, messageView } from '../../shared/assistant/response';
import { requireFeature } from '../../shared/features/store';
import { httpHandler } from '../../shared/http/handler';
import { conversationRoutes } from './routes';

export const handler = httpHandler(conversationRoutes.get, async ({ params, query, principal }) => {
  const { tenantId } = principal;
  await requireFeature(tenantId, 'ai_assistant');
  const conversation = await conversations.get(tenantId, params.conversation_id);
  const active = activeConversationOf(await conversations.list(tenantId), principal.clientId);
  const messages = await conversations.messagesPage(tenantId, conversation.conversation_id, query.offset, query.limit);
  return {
    body: {
      ...conversationSummary(conversation, active?.conversation_id === conversation.conversation_id),
      messages: messages.map(messageView),
    },
  };
});

import { conversations } from '../../shared/assistant/conversations';
import { actorOf } from '../../shared/db/actor';
import { requireFeature } from '../../shared/features/store';
import { httpHandler } from '../../shared/http/handler';
import { conversationRoutes } from './routes';

export const handler = httpHandler(conversationRoutes.start, async ({ principal }) => {
  await requireFeature(principal.tenantId, 'ai_assistant');
  const conversation = await conversations.start(principal.tenantId, actorOf(principal));
  return { status: 201, body: { conversation_id: conversation.conversation_id } };
});

import { conversations } from '../../shared/assistant/conversations';
import { requireFeature } from '../../shared/features/store';
import { httpHandler } from '../../shared/http/handler';
import { conversationRoutes } from './routes';

export const handler = httpHandler(conversationRoutes.delete, async ({ params, principal }) => {
  await requireFeature(principal.tenantId, 'ai_assistant');
  await conversations.delete(principal.tenantId, params.conversation_id);
  return { status: 204, body: undefined };
});

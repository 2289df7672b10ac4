import { configuredModel } from '../../shared/assistant/configured-model';
import { activeConversationOf, conversations } from '../../shared/assistant/conversations';
import { composeReply } from '../../shared/assistant/reply';
import { messageView } from '../../shared/assistant/response';
import { requireTokensLeft } from '../../shared/assistant/token-budget';
import { config } from '../../shared/config';
import { AppError } from '../../shared/errors/app-error';
import { requireFeature } from '../../shared/features/store';
import { httpHandler } from '../../shared/http/handler';
import { conversationRoutes } from './routes';

export const handler = httpHandler(conversationRoutes.send, async ({ params, body, principal, signal, deadline }) => {
  const { tenantId } = principal;
  await requireFeature(tenantId, 'ai_assistant');
  const model = configuredModel();
  const conversation = await conversations.get(tenantId, params.conversation_id);
  if (body.content.trim() === '') throw new AppError('20-1032');
  const active = activeConversationOf(await conversations.list(tenantId), principal.clientId);
  if (active?.conversation_id !== conversation.conversation_id)
    throw new AppError('20-1030', {
      extraDetails: { active_conversation_id: active?.conversation_id ?? null },
    });
  await requireTokensLeft(tenantId);
  const asked = new Date().toISOString();
  const history = await conversations.latestMessages(
    tenantId,
    conversation.conversation_id,
    config.assistant.historyMessages,
  );
  const reply = await composeReply({
    tenantId,
    question: body.content,
    history,
    model,
    analysis: { signal, deadline },
  });
  const [, stored] = await conversations.append(tenantId, conversation.conversation_id, [
    { type: 'user', content: body.content, timestamp: asked, tables_used: [] },
    { type: 'assistant', timestamp: new Date().toISOString(), ...reply },
  ]);
  return { status: 201, body: messageView(stored!) };
});

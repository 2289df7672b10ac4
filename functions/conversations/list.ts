import { activeConversationOf, conversations, type StoredConversation } from '../../shared/assistant/conversations';
import { conversationSummary } from '../../shared/assistant/response';
import { requireFeature } from '../../shared/features/store';
import { httpHandler } from '../../shared/http/handler';
import { applyListQuery, type ListFields } from '../../shared/http/list-query';
import type { CONVERSATION_LIST_FIELDS } from '../../shared/model/list-fields';
import { conversationRoutes } from './routes';

/** A conversation in start order, and whether it is the caller's active one. */
interface Listed {
  readonly id: number;
  readonly conversation: StoredConversation;
  readonly active: boolean;
}

/** What a conversation list can be filtered and sorted by (docs/list-query.md). */
const FIELDS: ListFields<Listed, typeof CONVERSATION_LIST_FIELDS> = {
  conversation_id: { type: 'string', value: ({ conversation }) => conversation.conversation_id },
  created_date: { type: 'datetime', value: ({ conversation }) => conversation.created_date },
  last_modified_date: { type: 'datetime', value: ({ conversation }) => conversation.last_modified_date },
  message_count: { type: 'integer', value: ({ conversation }) => conversation.message_count },
  active: { type: 'boolean', value: ({ active }) => active },
};

export const handler = httpHandler(conversationRoutes.list, async ({ query, principal }) => {
  await requireFeature(principal.tenantId, 'ai_assistant');
  const all = await conversations.list(principal.tenantId);
  const active = activeConversationOf(all, principal.clientId);
  const inOrder = all.sort(
    (a, b) => a.created_date.localeCompare(b.created_date) || a.conversation_id.localeCompare(b.conversation_id),
  );
  const page = applyListQuery(
    inOrder.map((conversation, index) => ({ id: index + 1, conversation, active: conversation === active })),
    query,
    FIELDS,
  );
  return {
    body: {
      ...page,
      items: page.items.map(({ conversation, active: isActive }) => conversationSummary(conversation, isActive)),
    },
  };
});

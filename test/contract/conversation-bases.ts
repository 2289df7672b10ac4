/**
 * The valid requests of the AI-assistant conversation operations, apart from
 * test/contract/corpus.ts to keep each module small. The contract twin configures no model,
 * so the ai_assistant toggle is unavailable: a request the document accepts answers 10-1501,
 * one it refuses 10-1400, as the handler validates before it looks at the toggle.
 */
import type { OperationId } from '../../functions/routes';
import type { JsonValue } from './variations';

/** The parts of a valid request the corpus varies (the Base of test/contract/corpus.ts). */
export interface ConversationBase {
  readonly params?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string>>;
  readonly body?: JsonValue;
}

const conversation = { conversation_id: '6f1d7a52-3c1e-4d2b-9a51-0c5e8f7b2a10' };

export function conversationBases(): Partial<Readonly<Record<OperationId, ConversationBase>>> {
  return {
    startConversation: {},
    listConversations: {},
    getConversation: { params: conversation, query: { offset: '0', limit: '10' } },
    sendConversationMessage: { params: conversation, body: { content: 'Which of my tables hold order dates?' } },
    deleteConversation: { params: conversation },
  };
}

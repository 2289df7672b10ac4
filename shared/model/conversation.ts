import * as z from 'zod';
import { integerText, listEnvelope } from './common';

/**
 * AI-assistant conversations (spec 2.10): a conversation and its messages, the user's and the
 * assistant's replies. The assistant reads the tenant's own tables and recipes; its SQL is
 * checked by the recipe SQL analyzer before a reply is stored (docs/assistant.md).
 */

/** Conversation ids are UUIDs, written in lower case. */
export const CONVERSATION_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Longest message a user may send, in characters. */
export const MAX_MESSAGE_CHARS = 8_000;

export const ConversationIdParams = z.strictObject({
  conversation_id: z.string().regex(CONVERSATION_ID_PATTERN, 'must be a conversation id (a UUID)'),
});

export const MESSAGE_TYPES = ['user', 'assistant'] as const;
export const MessageType = z.enum(MESSAGE_TYPES).describe('Who wrote it: the user, or the assistant');
export type MessageType = z.infer<typeof MessageType>;

export const TableUsed = z.object({ data_table_id: z.int(), name: z.string() }).meta({ id: 'ConversationTableUsed' });
export type TableUsed = z.infer<typeof TableUsed>;

export const ConversationMessage = z
  .object({
    conversation_id: z.string(),
    message_number: z.int().describe('Position in the conversation, from 1'),
    type: MessageType,
    content: z.string(),
    timestamp: z.iso.datetime(),
    tables_used: z
      .array(TableUsed)
      .describe(
        'The data tables the assistant read or whose SQL its reply holds; every SQL block of a reply passed the analyzer against their columns. Empty for user messages',
      ),
    truncated: z
      .boolean()
      .describe(
        'Whether the model’s answer was longer than a reply holds and was cut; the content then ends with a note that says so (docs/assistant.md)',
      ),
    original_chars: z
      .int()
      .optional()
      .describe('Where truncated: the length of the model’s whole answer, in characters'),
  })
  .meta({ id: 'ConversationMessage' });
export type ConversationMessage = z.infer<typeof ConversationMessage>;

const conversationFields = {
  conversation_id: z.string(),
  created_date: z.iso.datetime(),
  last_modified_date: z.iso.datetime(),
  message_count: z.int(),
  active: z
    .boolean()
    .describe('Whether it accepts messages: the caller’s most recently started conversation (docs/assistant.md)'),
};

export const ConversationSummary = z.object(conversationFields).meta({ id: 'ConversationSummary' });
export type ConversationSummary = z.infer<typeof ConversationSummary>;

export const Conversation = z
  .object({
    ...conversationFields,
    messages: z.array(ConversationMessage).describe('A page of its messages, oldest first (offset and limit)'),
  })
  .meta({ id: 'Conversation' });

export const ConversationList = listEnvelope(ConversationSummary, 'ConversationList');

export const ConversationStarted = z.object({ conversation_id: z.string() }).meta({ id: 'ConversationStarted' });

/** Which of a conversation's messages GET /conversations/{conversation_id} shows. */
export const ConversationMessagesQuery = z.strictObject({
  offset: integerText('must be an integer', 0).optional().default(0).describe('Messages to skip'),
  limit: integerText('must be an integer', 1, 1000)
    .optional()
    .default(100)
    .describe('Messages to return, at most 1000'),
});

export const SendMessageRequest = z
  .strictObject({
    content: z
      .string()
      .max(MAX_MESSAGE_CHARS)
      .describe(
        `The question, at most ${MAX_MESSAGE_CHARS} characters; an empty or blank one is 20-1032. Text in the tenant’s data is only ever data to the assistant`,
      ),
  })
  .meta({ id: 'SendMessageRequest' });

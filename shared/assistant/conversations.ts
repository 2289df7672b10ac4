import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import type { Actor } from '../db/actor';
import { is } from '../db/expressions';
import { ItemType } from '../db/item-type';
import { StoredActor } from '../db/items';
import { keys } from '../db/keys';
import { deleteItems, keysUnder } from '../db/purge';
import { RecordStore } from '../db/record-store';
import { transactWrite, tx } from '../db/transactions';
import { notFound as entityNotFound, versionConflict } from '../errors/app-error';
import { MessageType, TableUsed } from '../model/conversation';

/**
 * Conversations and their messages in the table. A conversation is a record of the tenant
 * (keyed by its UUID) that counts its messages; each message is an item of the
 * conversation's own partition, numbered from 1, so a page of messages is one Query from a
 * sort key and the newest few are one Query backwards. Deleting a conversation deletes the
 * record first, then its messages: nothing reaches them once the record is gone.
 */

const StoredConversation = z.object({
  conversation_id: z.string(),
  /** The API client that started it: its most recent conversation is the one that accepts messages. */
  created_by: StoredActor,
  created_date: z.string(),
  last_modified_date: z.string(),
  message_count: z.int(),
});
export type StoredConversation = z.infer<typeof StoredConversation>;

const StoredMessage = z.object({
  conversation_id: z.string(),
  message_number: z.int(),
  type: MessageType,
  content: z.string(),
  timestamp: z.string(),
  tables_used: z.array(TableUsed),
  /** Where the model's answer was cut to fit a reply (reply-bound.ts): its whole length. */
  original_chars: z.int().optional(),
});
export type StoredMessage = z.infer<typeof StoredMessage>;

/** A message before it has its place in the conversation. */
export type NewMessage = Omit<StoredMessage, 'conversation_id' | 'message_number'>;

const conversationRecords = new RecordStore({
  kind: 'CONVERSATION',
  schema: StoredConversation,
  idOf: (conversation) => conversation.conversation_id,
});
const messageItems = new ItemType('CONVERSATION_MESSAGE', StoredMessage);

/** Times an exchange is appended again after a concurrent one took its message numbers. */
const APPEND_ATTEMPTS = 4;

const notFound = (conversationId: string) => entityNotFound('conversation', conversationId);

export const conversations = {
  async start(tenantId: string, actor: Actor): Promise<StoredConversation> {
    const now = new Date().toISOString();
    const conversation: StoredConversation = {
      conversation_id: randomUUID(),
      created_by: actor,
      created_date: now,
      last_modified_date: now,
      message_count: 0,
    };
    await conversationRecords.create(tenantId, conversation);
    return conversation;
  },

  /** The tenant's conversation, or 10-404: another tenant's ids are never found, as their keys start with theirs. */
  async get(tenantId: string, conversationId: string): Promise<StoredConversation> {
    const conversation = await conversationRecords.find(tenantId, conversationId);
    if (conversation === undefined) throw notFound(conversationId);
    return conversation;
  },

  list(tenantId: string): Promise<StoredConversation[]> {
    return conversationRecords.list(tenantId);
  },

  /** Messages `offset + 1` to `offset + limit`, oldest first, read from that position on. */
  messagesPage(tenantId: string, conversationId: string, offset: number, limit: number): Promise<StoredMessage[]> {
    const partition = keys.conversationMessages(tenantId, conversationId);
    return messageItems
      .query(partition, keys.CONVERSATION_MESSAGE_PREFIX, {
        after: offset > 0 ? keys.conversationMessage(tenantId, conversationId, offset).sk : undefined,
        pageSize: limit,
        enough: (found) => found.length >= limit,
      })
      .then((messages) => messages.slice(0, limit));
  },

  /** The newest `count` messages, oldest first. */
  async latestMessages(tenantId: string, conversationId: string, count: number): Promise<StoredMessage[]> {
    const newestFirst = await messageItems.query(
      keys.conversationMessages(tenantId, conversationId),
      keys.CONVERSATION_MESSAGE_PREFIX,
      { newestFirst: true, pageSize: count, enough: (found) => found.length >= count },
    );
    return newestFirst.slice(0, count).reverse();
  },

  /**
   * Appends the messages after the conversation's last one, in one transaction with its
   * count: an exchange is never half stored. A concurrent exchange that took the numbers
   * first makes this one follow it.
   */
  async append(tenantId: string, conversationId: string, messages: readonly NewMessage[]): Promise<StoredMessage[]> {
    for (let attempt = 1; attempt <= APPEND_ATTEMPTS; attempt += 1) {
      const { message_count: count } = await conversations.get(tenantId, conversationId);
      const stored = messages.map((message, index) => ({
        ...message,
        conversation_id: conversationId,
        message_number: count + index + 1,
      }));
      const outcome = await transactWrite([
        tx.update(
          keys.record(tenantId, 'CONVERSATION', conversationId),
          { set: { message_count: count + messages.length, last_modified_date: new Date().toISOString() } },
          { when: is.equal('message_count', count) },
        ),
        ...stored.map((message) =>
          tx.put(
            keys.conversationMessage(tenantId, conversationId, message.message_number),
            messageItems.attributes(message, { kind: 'CONVERSATION_MESSAGE' }),
            { when: is.absent('pk') },
          ),
        ),
      ]);
      if (outcome.committed) return stored;
    }
    throw versionConflict();
  },

  /** Deletes the conversation, then its messages; 10-404 when there is none. */
  async delete(tenantId: string, conversationId: string): Promise<void> {
    if (!(await conversationRecords.delete(tenantId, conversationId))) throw notFound(conversationId);
    await deleteItems(await keysUnder(keys.conversationMessages(tenantId, conversationId)));
  },
};

/**
 * The conversation that accepts the caller's messages: the one the caller (its API client)
 * started last; undefined while it has none. Starting a conversation retires the earlier ones.
 */
export function activeConversationOf(
  all: readonly StoredConversation[],
  clientId: string,
): StoredConversation | undefined {
  let active: StoredConversation | undefined;
  for (const conversation of all) {
    if (conversation.created_by.id !== clientId) continue;
    if (
      active === undefined ||
      conversation.created_date > active.created_date ||
      (conversation.created_date === active.created_date && conversation.conversation_id > active.conversation_id)
    )
      active = conversation;
  }
  return active;
}

/**
 * The assistant at its limits (docs/assistant.md, "Bounds"): an answer far longer than a reply
 * holds (a model that ran to its output limit) is cut, stored, and says what was cut; a model
 * that never answers is the model's failure, 502 50-1012, before the request's own time limit
 * would answer 10-500. The request's time limit is shortened so the test takes seconds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_REPLY_CHARS } from '../../../shared/assistant/reply-bound';
import type { ApiClient } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';
import { startFakeBedrock, type FakeBedrock } from '../../fakes/bedrock-converse';

/** Every request's time limit, as a route function's 29 s when deployed. */
const REQUEST_LIMIT_MS = 5_000;
const ANSWER_MARGIN_MS = 2_000;

let env: TestTwin;
let bedrock: FakeBedrock;
let api: ApiClient;

beforeAll(async () => {
  bedrock = await startFakeBedrock();
  env = await startTestTwin({
    requestTimeLimitMs: REQUEST_LIMIT_MS,
    environment: { ...bedrock.environment, ASSISTANT_ANSWER_MARGIN_MS: String(ANSWER_MARGIN_MS) },
  });
  // The tenant first: a toggle override names a tenant that exists.
  api = await env.clientFor('shop-limits', ['editor']);
  const override = await env.platformAdmin.call('setFeatureToggleOverride', {
    params: { toggle_name: 'ai_assistant', tenant_id: 'shop-limits' },
    body: { strategy: 'on' },
  });
  expect(override.status, override.text).toBe(200);
}, 120_000);
afterAll(async () => {
  await env?.close();
  await bedrock?.close();
});

async function startConversation(): Promise<string> {
  const started = await api.call('startConversation');
  expect(started.status, started.text).toBe(201);
  return started.body.conversation_id;
}

const send = (conversationId: string, content: string) =>
  api.call('sendConversationMessage', { params: { conversation_id: conversationId }, body: { content } });

describe('an answer longer than a reply holds', () => {
  it('is cut, stored, and says how long it was', async () => {
    const conversationId = await startConversation();
    // About 2 MB, as a model that ran to its output limit; a SQL block straddles the cut.
    const head = 'Every order, row by row. '.repeat(Math.floor((MAX_REPLY_CHARS - 400) / 25));
    const answer = `${head}\n\`\`\`sql\nSELECT ${'amount, '.repeat(100)}1 FROM orders\n\`\`\`\n${'And more. '.repeat(200_000)}`;
    bedrock.play({ text: answer, stopReason: 'max_tokens', usage: { inputTokens: 500, outputTokens: 4_096 } });

    const reply = await send(conversationId, 'Describe every order');
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body).toMatchObject({ type: 'assistant', truncated: true, original_chars: answer.length });
    expect(reply.body.content.length).toBeLessThanOrEqual(MAX_REPLY_CHARS);
    expect(reply.body.content.startsWith(head.trimEnd())).toBe(true);
    expect(reply.body.content).toContain(`the model answered ${answer.length} characters`);
    // The fence the cut would leave open (unchecked SQL) is left out whole.
    expect(reply.body.content).not.toContain('```');

    const stored = await api.call('getConversation', { params: { conversation_id: conversationId } });
    expect(stored.status, stored.text).toBe(200);
    expect(stored.body.messages.map((message) => [message.type, message.truncated])).toEqual([
      ['user', false],
      ['assistant', true],
    ]);
    expect(stored.body.messages[1]).toEqual(reply.body);
  });

  it('is not marked when it fits', async () => {
    const conversationId = await startConversation();
    bedrock.play({ text: 'Short and whole.' });
    const reply = await send(conversationId, 'Hello');
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body).toMatchObject({ content: 'Short and whole.', truncated: false });
    expect(reply.body.original_chars).toBeUndefined();
  });
});

describe('a model that never answers', () => {
  it('is 502 50-1012 before the request’s own time limit, storing nothing', async () => {
    const conversationId = await startConversation();
    bedrock.play({ hang: true });
    const started = Date.now();
    const failed = await send(conversationId, 'Anyone there?');
    const took = Date.now() - started;
    expect(failed.status, failed.text).toBe(502);
    expect(failed.problem.code).toBe('50-1012');
    expect(took).toBeLessThan(REQUEST_LIMIT_MS);
    expect(took).toBeGreaterThanOrEqual(REQUEST_LIMIT_MS - ANSWER_MARGIN_MS - 1_000);
    const conversation = await api.call('getConversation', { params: { conversation_id: conversationId } });
    expect(conversation.body.message_count).toBe(0);
  });
});

/**
 * The OpenAI-compatible model (as a local Ollama serves it) against a small chat-completions
 * server: tools go out as function tools, tool uses and results as tool_calls and tool
 * messages, and its answer comes back as text, tool uses and usage.
 */
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatCompletionsModel } from '../../../shared/assistant/chat-completions-model';
import { listenLocally, type Listening } from '../../../infra/local/fakes/local-server';

interface Received {
  readonly path: string;
  readonly body: {
    model: string;
    messages: { role: string; content: string; tool_calls?: unknown[]; tool_call_id?: string }[];
    tools: { type: string; function: { name: string; parameters: unknown } }[];
    max_tokens: number;
  };
}

let server: Listening;
const received: Received[] = [];
let answer: unknown;
let status = 200;

beforeAll(async () => {
  server = await listenLocally(
    createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({
          path: request.url ?? '',
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Received['body'],
        });
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(answer));
      });
    }),
  );
});
afterAll(() => server?.close());

const model = () => new ChatCompletionsModel(`http://127.0.0.1:${server.port}/v1/`, 'llama3.1');
const request = {
  system: 'Be brief.',
  turns: [
    { role: 'user' as const, text: 'Which tables?' },
    { role: 'assistant' as const, text: '', toolUses: [{ id: 'call_1', name: 'list_data_tables', input: {} }] },
    { role: 'user' as const, toolResults: [{ toolUseId: 'call_1', content: '{"tables":[]}', isError: false }] },
  ],
  tools: [{ name: 'list_data_tables', description: 'Lists tables', inputSchema: { type: 'object', properties: {} } }],
  maxOutputTokens: 500,
  signal: AbortSignal.timeout(5_000),
};

describe('the chat-completions model', () => {
  it('sends the exchange as chat messages with function tools, and reads tool calls back', async () => {
    status = 200;
    answer = {
      choices: [
        {
          message: {
            content: null,
            tool_calls: [
              { id: 'call_2', type: 'function', function: { name: 'check_sql', arguments: '{"code":"SELECT 1"}' } },
            ],
          },
        },
      ],
      usage: { prompt_tokens: 120, completion_tokens: 8 },
    };
    const result = await model().answer(request);
    expect(result).toEqual({
      text: '',
      toolUses: [{ id: 'call_2', name: 'check_sql', input: { code: 'SELECT 1' } }],
      usage: { inputTokens: 120, outputTokens: 8 },
    });
    const sent = received.at(-1)!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.body.model).toBe('llama3.1');
    expect(sent.body.max_tokens).toBe(500);
    expect(sent.body.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(sent.body.messages[2]!.tool_calls).toEqual([
      { id: 'call_1', type: 'function', function: { name: 'list_data_tables', arguments: '{}' } },
    ]);
    expect(sent.body.messages[3]).toEqual({ role: 'tool', tool_call_id: 'call_1', content: '{"tables":[]}' });
    expect(sent.body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'list_data_tables',
          description: 'Lists tables',
          parameters: { type: 'object', properties: {} },
        },
      },
    ]);
  });

  it('reads a text answer, and arguments that are not a JSON object as none', async () => {
    answer = {
      choices: [
        {
          message: {
            content: 'Two tables.',
            tool_calls: [{ id: 'c', function: { name: 'list_recipes', arguments: 'oops' } }],
          },
        },
      ],
    };
    const result = await model().answer(request);
    expect(result.text).toBe('Two tables.');
    expect(result.toolUses).toEqual([{ id: 'c', name: 'list_recipes', input: {} }]);
    expect(result.usage).toEqual({ inputTokens: 0, outputTokens: 0 });
  });

  it('fails on an error status, naming it', async () => {
    status = 404;
    answer = { error: 'model "llama3.1" not found' };
    await expect(model().answer(request)).rejects.toThrow(/answered 404: .*not found/);
    status = 200;
  });
});

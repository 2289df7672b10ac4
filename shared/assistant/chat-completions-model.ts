import * as z from 'zod';
import type { AssistantModel, ChatTurn, ModelAnswer, ModelRequest, ToolUse } from './model';

/**
 * The assistant's model behind an OpenAI-compatible chat-completions API (POST
 * <root>/chat/completions), such as a local Ollama's http://127.0.0.1:11434/v1: tools as
 * `function` tools, tool uses as `tool_calls` (arguments are JSON text), tool results as
 * `tool` messages.
 */

type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | {
      role: 'assistant';
      content: string;
      tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
    }
  | { role: 'tool'; tool_call_id: string; content: string };

const ChatCompletion = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullish(),
          tool_calls: z
            .array(z.object({ id: z.string(), function: z.object({ name: z.string(), arguments: z.string() }) }))
            .nullish(),
        }),
      }),
    )
    .min(1),
  usage: z.object({ prompt_tokens: z.number(), completion_tokens: z.number() }).partial().nullish(),
});

function messagesOf(turn: ChatTurn): ChatMessage[] {
  if (turn.role === 'assistant') {
    const calls = turn.toolUses.map((use) => ({
      id: use.id,
      type: 'function' as const,
      function: { name: use.name, arguments: JSON.stringify(use.input) },
    }));
    return [{ role: 'assistant', content: turn.text, ...(calls.length > 0 ? { tool_calls: calls } : {}) }];
  }
  if (turn.toolResults !== undefined)
    return turn.toolResults.map((result) => ({
      role: 'tool',
      tool_call_id: result.toolUseId,
      content: result.content,
    }));
  return [{ role: 'user', content: turn.text }];
}

/** A tool call's arguments as an object: text that is not a JSON object reads as no arguments. */
function argumentsOf(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

export class ChatCompletionsModel implements AssistantModel {
  readonly name: string;

  constructor(
    private readonly root: string,
    private readonly model: string,
  ) {
    this.name = `chat:${model}`;
  }

  async answer(request: ModelRequest): Promise<ModelAnswer> {
    const response = await fetch(`${this.root.replace(/\/+$/, '')}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: this.model,
        stream: false,
        max_tokens: request.maxOutputTokens,
        messages: [{ role: 'system', content: request.system }, ...request.turns.flatMap(messagesOf)],
        tools: request.tools.map((tool) => ({
          type: 'function',
          function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
        })),
      }),
      signal: request.signal,
    });
    if (!response.ok)
      throw new Error(`chat completions answered ${response.status}: ${(await response.text()).slice(0, 500)}`);
    const completion = ChatCompletion.parse(await response.json());
    const { message } = completion.choices[0]!;
    const toolUses: ToolUse[] = (message.tool_calls ?? []).map((call) => ({
      id: call.id,
      name: call.function.name,
      input: argumentsOf(call.function.arguments),
    }));
    return {
      text: message.content ?? '',
      toolUses,
      usage: {
        inputTokens: completion.usage?.prompt_tokens ?? 0,
        outputTokens: completion.usage?.completion_tokens ?? 0,
      },
    };
  }
}

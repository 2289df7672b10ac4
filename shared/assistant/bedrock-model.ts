import {
  BedrockRuntimeClient,
  ConverseCommand,
  type BedrockRuntimeClientConfig,
  type ContentBlock,
  type Message,
  type Tool,
  type ToolUseBlock,
} from '@aws-sdk/client-bedrock-runtime';
import { perStores } from '../aws/per-stores';
import type { AssistantModel, ChatTurn, ModelAnswer, ModelRequest, ToolUse } from './model';

/**
 * The assistant's model on Amazon Bedrock, through the Converse API: one request per model
 * turn, tools as `toolConfig`, tool uses and results as content blocks. The endpoint comes
 * from the SDK's own configuration (AWS_ENDPOINT_URL_BEDROCK_RUNTIME), as every AWS client's
 * does here; credentials from the SDK's chain (the function's role), unless the twin gave
 * others (useBedrockCredentials).
 */

/** A JSON document as the SDK types it (smithy's DocumentType). */
type DocumentType = NonNullable<ToolUseBlock['input']>;
type CredentialsProvider = NonNullable<BedrockRuntimeClientConfig['credentials']>;

/** A Bedrock client for the endpoint the environment names, made again when it names another. */
const clientFor = (credentials: CredentialsProvider | undefined) =>
  perStores(
    () => new BedrockRuntimeClient(credentials ? { credentials } : {}),
    (client) => client.destroy(),
  );

let bedrockClient = clientFor(undefined);

/**
 * Credentials for the Bedrock client instead of the SDK's chain. The twin sets its local
 * stand-ins' keys in the environment for every other client; it hands the Bedrock client the
 * caller's own chain, resolved before it did (infra/local/main.ts, --bedrock-endpoint).
 */
export function useBedrockCredentials(provider: CredentialsProvider | undefined): void {
  bedrockClient = clientFor(provider);
}

function contentOf(turn: ChatTurn): ContentBlock[] {
  if (turn.role === 'assistant') {
    const text: ContentBlock[] = turn.text === '' ? [] : [{ text: turn.text }];
    return [
      ...text,
      ...turn.toolUses.map((use): ContentBlock => ({
        toolUse: { toolUseId: use.id, name: use.name, input: use.input as DocumentType },
      })),
    ];
  }
  if (turn.toolResults !== undefined)
    return turn.toolResults.map((result): ContentBlock => ({
      toolResult: {
        toolUseId: result.toolUseId,
        content: [{ text: result.content }],
        status: result.isError ? 'error' : 'success',
      },
    }));
  return [{ text: turn.text }];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export class BedrockConverseModel implements AssistantModel {
  readonly name: string;

  constructor(private readonly modelId: string) {
    this.name = `bedrock:${modelId}`;
  }

  async answer(request: ModelRequest): Promise<ModelAnswer> {
    const messages: Message[] = request.turns.map((turn) => ({ role: turn.role, content: contentOf(turn) }));
    const tools: Tool[] = request.tools.map((tool): Tool.ToolSpecMember => ({
      toolSpec: {
        name: tool.name,
        description: tool.description,
        inputSchema: { json: tool.inputSchema as DocumentType },
      },
    }));
    const output = await bedrockClient().send(
      new ConverseCommand({
        modelId: this.modelId,
        system: [{ text: request.system }],
        messages,
        toolConfig: { tools },
        inferenceConfig: { maxTokens: request.maxOutputTokens },
      }),
      { abortSignal: request.signal },
    );
    const blocks = output.output?.message?.content ?? [];
    const toolUses: ToolUse[] = [];
    const texts: string[] = [];
    for (const block of blocks) {
      if (block.text !== undefined) texts.push(block.text);
      if (block.toolUse !== undefined)
        toolUses.push({
          id: block.toolUse.toolUseId ?? '',
          name: block.toolUse.name ?? '',
          input: isObject(block.toolUse.input) ? block.toolUse.input : {},
        });
    }
    return {
      text: texts.join('\n'),
      toolUses,
      usage: { inputTokens: output.usage?.inputTokens ?? 0, outputTokens: output.usage?.outputTokens ?? 0 },
    };
  }
}

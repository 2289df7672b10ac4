/**
 * The assistant's view of a chat model with tool use, whatever serves it: Bedrock's Converse
 * API (bedrock-model.ts) or an OpenAI-compatible chat-completions API such as a local Ollama
 * (chat-completions-model.ts). Each implementation maps these shapes to its wire format and
 * back; the conversation loop (reply.ts) knows only these.
 */

/** A tool the model may ask for: its name, what it does, and its input as JSON Schema. */
export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
}

/** The model asks for a tool to run with this input. */
export interface ToolUse {
  readonly id: string;
  readonly name: string;
  readonly input: Readonly<Record<string, unknown>>;
}

/** What a tool answered, as text (JSON), to the tool use of the same id. */
export interface ToolResult {
  readonly toolUseId: string;
  readonly content: string;
  readonly isError: boolean;
}

/** One turn of the exchange the model is shown. */
export type ChatTurn =
  | { readonly role: 'user'; readonly text: string; readonly toolResults?: undefined }
  | { readonly role: 'user'; readonly text?: undefined; readonly toolResults: readonly ToolResult[] }
  | { readonly role: 'assistant'; readonly text: string; readonly toolUses: readonly ToolUse[] };

export interface ModelRequest {
  readonly system: string;
  readonly turns: readonly ChatTurn[];
  readonly tools: readonly ToolSpec[];
  /** Most tokens the answer may have. */
  readonly maxOutputTokens: number;
  readonly signal: AbortSignal;
}

export interface ModelAnswer {
  readonly text: string;
  readonly toolUses: readonly ToolUse[];
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number };
}

export interface AssistantModel {
  /** Which model, for logs: `bedrock:<model id>` or `chat:<model>`. */
  readonly name: string;
  answer(request: ModelRequest): Promise<ModelAnswer>;
}

/**
 * A Bedrock Runtime stand-in speaking the Converse API's wire format (restJson1, as the real
 * SDK sends it: POST /model/{modelId}/converse, a JSON body of system, messages, toolConfig
 * and inferenceConfig). It plays scripted model turns in order (text, tool uses, or a
 * function of the request for a turn that depends on what the service sent), records every
 * request so tests can see which tools were offered and called and what the model was shown,
 * and reports usage tokens. The real SDK client reaches it through
 * AWS_ENDPOINT_URL_BEDROCK_RUNTIME with the twin's static credentials; it speaks HTTP/2, as
 * the Bedrock Runtime client does (cleartext here: h2c).
 */
import { createServer, type Http2ServerRequest, type Http2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';

/** A tool use the scripted model asks for. */
export interface ScriptedToolUse {
  readonly name: string;
  readonly input: Readonly<Record<string, unknown>>;
}

/** One scripted model turn: its text, its tool uses, the tokens it reports, or a failure status. */
export interface ScriptedTurn {
  readonly text?: string;
  readonly toolUses?: readonly ScriptedToolUse[];
  readonly usage?: { readonly inputTokens: number; readonly outputTokens: number };
  /** Answer this HTTP status with a Bedrock error instead (e.g. 503). */
  readonly failWith?: number;
  /** The stop reason answered instead of `tool_use` or `end_turn` (e.g. `max_tokens`). */
  readonly stopReason?: string;
  /** Never answer: the request stays open until the client gives up (a model that hangs). */
  readonly hang?: true;
}

/** A content block of a Converse message, as the SDK serialises it. */
export interface ConverseContentBlock {
  readonly text?: string;
  readonly toolUse?: { readonly toolUseId: string; readonly name: string; readonly input: Record<string, unknown> };
  readonly toolResult?: {
    readonly toolUseId: string;
    readonly content: readonly { readonly text?: string; readonly json?: unknown }[];
    readonly status?: string;
  };
}

/** A Converse request body, as recorded. */
export interface ConverseRequest {
  readonly modelId: string;
  readonly system?: readonly { readonly text: string }[];
  readonly messages: readonly {
    readonly role: 'user' | 'assistant';
    readonly content: readonly ConverseContentBlock[];
  }[];
  readonly toolConfig?: {
    readonly tools: readonly {
      readonly toolSpec: {
        readonly name: string;
        readonly description?: string;
        readonly inputSchema: { readonly json: unknown };
      };
    }[];
  };
  readonly inferenceConfig?: { readonly maxTokens?: number };
  /** The Authorization header: the request was signed. */
  readonly authorization: string | undefined;
}

export type Script = ScriptedTurn | ((request: ConverseRequest) => ScriptedTurn);

export interface FakeBedrock {
  readonly endpoint: string;
  readonly modelId: string;
  /** The environment that points the service's Bedrock client here. */
  readonly environment: Readonly<Record<string, string>>;
  /** Every request received, oldest first. */
  readonly requests: ConverseRequest[];
  /** Sets the turns the model plays next, replacing those left; an unscripted request answers a plain text. */
  play(...turns: Script[]): void;
  /** Turns scripted but not yet played. */
  remaining(): number;
  close(): Promise<void>;
}

export const FAKE_MODEL_ID = 'anthropic.claude-fake-v1:0';

async function bodyOf(request: Http2ServerRequest): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

let toolUseCounter = 0;

function converseAnswer(turn: ScriptedTurn, requestBytes: number) {
  const content: ConverseContentBlock[] = [];
  if (turn.text !== undefined) content.push({ text: turn.text });
  for (const use of turn.toolUses ?? []) {
    toolUseCounter += 1;
    content.push({ toolUse: { toolUseId: `tooluse_${toolUseCounter}`, name: use.name, input: { ...use.input } } });
  }
  const usage = turn.usage ?? { inputTokens: Math.ceil(requestBytes / 4), outputTokens: 40 };
  return {
    output: { message: { role: 'assistant', content } },
    stopReason: turn.stopReason ?? ((turn.toolUses ?? []).length > 0 ? 'tool_use' : 'end_turn'),
    usage: { ...usage, totalTokens: usage.inputTokens + usage.outputTokens },
    metrics: { latencyMs: 1 },
  };
}

export async function startFakeBedrock(): Promise<FakeBedrock> {
  const requests: ConverseRequest[] = [];
  let script: Script[] = [];
  const server = createServer((request, response) => {
    void (async () => {
      const match = /^\/model\/([^/]+)\/converse$/.exec(request.url ?? '');
      if (request.method !== 'POST' || match === null) {
        response.writeHead(404, {
          'content-type': 'application/json',
          'x-amzn-errortype': 'UnknownOperationException',
        });
        response.end(JSON.stringify({ message: 'unknown operation' }));
        return;
      }
      const text = await bodyOf(request);
      const recorded: ConverseRequest = {
        ...(JSON.parse(text) as Omit<ConverseRequest, 'modelId' | 'authorization'>),
        modelId: decodeURIComponent(match[1]!),
        authorization: request.headers.authorization,
      };
      requests.push(recorded);
      const next = script.shift() ?? { text: 'I have nothing more to say.' };
      const turn = typeof next === 'function' ? next(recorded) : next;
      if (turn.hang) return;
      if (turn.failWith !== undefined) {
        response.writeHead(turn.failWith, {
          'content-type': 'application/json',
          'x-amzn-errortype': turn.failWith >= 500 ? 'ServiceUnavailableException' : 'ValidationException',
        });
        response.end(JSON.stringify({ message: 'the model is not available' }));
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(converseAnswer(turn, text.length)));
    })();
  });
  const sessions = new Set<Http2Session>();
  server.on('session', (session: Http2Session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    endpoint,
    modelId: FAKE_MODEL_ID,
    environment: { AWS_ENDPOINT_URL_BEDROCK_RUNTIME: endpoint, ASSISTANT_BEDROCK_MODEL_ID: FAKE_MODEL_ID },
    requests,
    play(...turns) {
      script = [...turns];
    },
    remaining: () => script.length,
    async close() {
      for (const session of sessions) session.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The tool uses a recorded request's messages hold, in order. */
export function toolUsesIn(request: ConverseRequest): { name: string; input: Record<string, unknown> }[] {
  return request.messages.flatMap((message) =>
    message.content.flatMap((block) =>
      block.toolUse ? [{ name: block.toolUse.name, input: block.toolUse.input }] : [],
    ),
  );
}

/** The text of every tool result a recorded request's messages hold, in order. */
export function toolResultsIn(request: ConverseRequest): string[] {
  return request.messages.flatMap((message) =>
    message.content.flatMap((block) =>
      block.toolResult ? block.toolResult.content.map((part) => part.text ?? JSON.stringify(part.json)) : [],
    ),
  );
}

/**
 * The HTTP front of the twin's AWS services that speak the AWS JSON protocol (KMS, DynamoDB,
 * Step Functions): a POST whose `x-amz-target` header names `<prefix>.<Operation>`, a JSON
 * object in, a JSON object out, and failures as `{"__type", "message"}` with their status.
 * Each service gives only its table of operations and throws JsonProtocolError for what its
 * callers should hear; the AWS SDK clients of the functions read the answers as they read
 * AWS's own. An operation is told the access key id that signed the request (the signature is
 * not checked), so a stand-in can answer as the caller's role would be answered.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request's or an answer's JSON object. */
export type JsonObject = Record<string, unknown>;

/** Who made a request: the access key id its SigV4 Authorization names (the signature is not checked). */
export interface JsonRequestContext {
  readonly accessKeyId: string | undefined;
}

/** The access key id of a SigV4 `Authorization` header (`... Credential=<key id>/<date>/...`). */
export function signingKeyId(authorization: string | undefined): string | undefined {
  return /Credential=([^/,\s]+)\//.exec(authorization ?? '')?.[1];
}

/** One operation of a service: its input object to its output object. */
export type JsonOperation = (input: JsonObject, request: JsonRequestContext) => JsonObject | Promise<JsonObject>;

export interface JsonProtocolErrorOptions {
  /** HTTP status; 400 unless given. */
  readonly status?: number;
  /** Members of the answer besides `__type` and `message`, e.g. CancellationReasons. */
  readonly fields?: Readonly<JsonObject>;
}

/** A failure the caller is told about, by its AWS error type (`__type`) and message. */
export class JsonProtocolError extends Error {
  readonly status: number;
  readonly fields: Readonly<JsonObject>;

  constructor(
    readonly type: string,
    message: string,
    options: JsonProtocolErrorOptions = {},
  ) {
    super(message);
    this.status = options.status ?? 400;
    this.fields = options.fields ?? {};
  }
}

export interface JsonProtocolOptions {
  /** Named in the message of an unknown operation: "… is not supported by the local <name>". */
  readonly name: string;
  /** What `x-amz-target` holds before ".<Operation>", e.g. "TrentService" or "DynamoDB_20120810". */
  readonly targetPrefix: string;
  /** The protocol version, which names the content type of every answer: 1.1 for KMS, 1.0 for the others. */
  readonly jsonVersion: '1.0' | '1.1';
  readonly operations: Readonly<Record<string, JsonOperation>>;
  /** `__type` of a failure that is not a JsonProtocolError (HTTP 500), e.g. "KMSInternalException". */
  readonly internalErrorType: string;
  /** Port on 127.0.0.1; a free one when omitted. */
  readonly port?: number;
}

export interface JsonProtocolServer {
  /** http://127.0.0.1:<port> */
  readonly endpoint: string;
  /** Drops open connections and stops listening. */
  close(): Promise<void>;
}

interface Answer {
  readonly status: number;
  readonly payload: JsonObject;
}

const failure = (error: JsonProtocolError): Answer => ({
  status: error.status,
  payload: { __type: error.type, message: error.message, ...error.fields },
});

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseInput(text: string): JsonObject | undefined {
  try {
    const input: unknown = JSON.parse(text || '{}');
    return typeof input === 'object' && input !== null && !Array.isArray(input) ? (input as JsonObject) : undefined;
  } catch {
    return undefined;
  }
}

/** Starts a service's JSON-protocol server on 127.0.0.1. */
export async function startJsonProtocolServer(options: JsonProtocolOptions): Promise<JsonProtocolServer> {
  const contentType = `application/x-amz-json-${options.jsonVersion}`;
  const prefix = `${options.targetPrefix}.`;

  async function answer(req: IncomingMessage): Promise<Answer> {
    const input = parseInput(await readBody(req));
    if (!input)
      return failure(new JsonProtocolError('SerializationException', 'the request body is not a JSON object'));
    const target = String(req.headers['x-amz-target'] ?? '');
    const operation = target.startsWith(prefix) ? target.slice(prefix.length) : '';
    // hasOwn: a target such as "<prefix>.constructor" names no operation.
    const run = Object.hasOwn(options.operations, operation) ? options.operations[operation] : undefined;
    if (!run)
      return failure(
        new JsonProtocolError(
          'UnknownOperationException',
          `${target || 'an empty target'} is not supported by the local ${options.name}`,
        ),
      );
    try {
      return { status: 200, payload: await run(input, { accessKeyId: signingKeyId(req.headers.authorization) }) };
    } catch (error) {
      if (error instanceof JsonProtocolError) return failure(error);
      return {
        status: 500,
        payload: { __type: options.internalErrorType, message: error instanceof Error ? error.message : String(error) },
      };
    }
  }

  function send(res: ServerResponse, { status, payload }: Answer): void {
    const text = JSON.stringify(payload);
    res.writeHead(status, {
      'content-type': contentType,
      'content-length': Buffer.byteLength(text),
      'x-amzn-requestid': randomBytes(20).toString('hex'),
    });
    res.end(text);
  }

  // A request that breaks off while its body is read has no one left to answer.
  const server = createServer(
    (req, res) =>
      void answer(req).then(
        (result) => send(res, result),
        () => res.destroy(),
      ),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A JSON value as the protocol's bodies carry it. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Who a client call speaks to: its `X-Amz-Target` prefix, and how Step Functions names its errors. */
export interface JsonProtocolService {
  /** `AmazonAthena`, `AmazonEC2ContainerServiceV20141113`. */
  readonly targetPrefix: string;
  /** `Athena`, `ECS`: an error is named `<prefix>.<its __type>`, as Step Functions names a service's errors. */
  readonly errorPrefix: string;
  /** The __type when an error answer names none. */
  readonly defaultErrorType: string;
}

/**
 * One call to a local stand-in over the AWS JSON protocol, as the twin's Step Functions
 * integrations make it (athena-sync.ts, ecs-run-task.ts); an error answer is thrown named
 * as Step Functions names it.
 */
export async function jsonProtocolCall(
  endpoint: string,
  service: JsonProtocolService,
  operation: string,
  input: JsonValue,
  accessKeyId?: string,
): Promise<Record<string, JsonValue>> {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-amz-json-1.1',
      'x-amz-target': `${service.targetPrefix}.${operation}`,
      // Whose credentials: the stand-ins read only the key id (signingKeyId), never the signature.
      ...(accessKeyId === undefined
        ? {}
        : { authorization: `AWS4-HMAC-SHA256 Credential=${accessKeyId}/19700101/us-east-1/local/aws4_request` }),
    },
    body: JSON.stringify(input),
  });
  const answer = (await response.json()) as Record<string, JsonValue>;
  if (!response.ok)
    throw Object.assign(new Error(String(answer.message ?? answer.Message)), {
      name: `${service.errorPrefix}.${String(answer.__type ?? service.defaultErrorType).replace(/^.*#/, '')}`,
    });
  return answer;
}

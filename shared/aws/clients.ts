import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  DynamoDBDocumentClientCommand,
  type DynamoDBDocumentClientResolvedConfig,
} from '@aws-sdk/lib-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { traceClient } from '../observability/tracing';
import { perStores } from './per-stores';

/**
 * SDK clients, created on first use and reused across invocations of a warm function.
 * Endpoints come from the SDK's own configuration (AWS_ENDPOINT_URL_<SERVICE>), which is how
 * the local twin points the very same code at its stand-ins.
 */
const dynamo = perStores(
  () => {
    const client = traceClient(new DynamoDBClient({ logger: QUIET_LOGGER }));
    reusingSigners(client.config);
    return resolvingOnce(
      DynamoDBDocumentClient.from(client, {
        marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
      }),
    );
  },
  (client) => client.destroy(),
);
const kms = perStores(
  () => traceClient(new KMSClient({ cacheMiddleware: true })),
  (client) => client.destroy(),
);

/**
 * The document client every store uses. Three measures spare it per-request work that changes
 * nothing it sends or returns (each below says why; test/unit/aws/clients.test.ts compares it
 * with the SDK's own): its middleware stack is resolved once per command class (a GetItem
 * costs about a fifth less CPU), one request signer per signing scope, and a logger that
 * gives the SDK no reason to copy inputs and outputs for a log line it does not write (these
 * two together about 3% of a warm API request).
 */
export function dynamoDocumentClient(): DynamoDBDocumentClient {
  return dynamo();
}

/**
 * The KMS client, with the SDK's `cacheMiddleware` option ("the client will only resolve the
 * middleware stack once per Command class"; the requests sent are the same): nothing adds
 * middleware to it, so nothing is lost by not sorting its stack anew for every request.
 */
export function kmsClient(): KMSClient {
  return kms();
}

type SdkLogger = NonNullable<DynamoDBClientConfig['logger']>;

/**
 * The SDK's default logger writes nothing, yet has an `info`, so its logger middleware copies
 * every input and output through their schemas' log filters on every request for nothing.
 * This one writes nothing either and has no `info`, which that middleware (the only caller of
 * `info` in the SDK) checks for.
 */
const QUIET_LOGGER = { trace() {}, debug() {}, warn() {}, error() {} } satisfies Omit<SdkLogger, 'info'> as SdkLogger;

type Signer = DynamoDBClient['config']['signer'];

/**
 * One request signer per signing scope. The SDK's default makes a new SignatureV4 for every
 * request, copying the whole client configuration into it; a signer signs each request with
 * that request's region, service and date, and reads credentials through the client's
 * provider each time, so the one kept signs as a new one would.
 */
function reusingSigners(config: { signer: Signer }): void {
  const make = config.signer;
  const signers = new Map<string, ReturnType<Signer>>();
  config.signer = (authScheme) => {
    // What the default signer reads of the scheme.
    const scope =
      authScheme === undefined
        ? ''
        : `${authScheme.name} ${authScheme.signingName ?? ''} ${authScheme.signingRegion ?? ''}`;
    let signer = signers.get(scope);
    if (signer === undefined) {
      signer = make(authScheme);
      signer.catch(() => signers.delete(scope));
      signers.set(scope, signer);
    }
    return signer;
  };
}

type Stack = DynamoDBDocumentClient['middlewareStack'];
type Resolved = (command: unknown) => Promise<{ output: unknown }>;

/** What lib-dynamodb's document commands keep protected: the base command they wrap and how they add (un)marshalling to it. */
interface DocumentCommandInternals {
  readonly middlewareStack: Stack;
  readonly clientCommand: {
    resolveMiddleware(stack: Stack, configuration: DynamoDBDocumentClientResolvedConfig, options: undefined): Resolved;
  };
  addMarshallingMiddleware(configuration: DynamoDBDocumentClientResolvedConfig): void;
}

/**
 * Whether the command is a document command with the members used here. In Lambda the
 * runtime's SDK is used (bundles leave `@aws-sdk/*` out), not the pinned one: should a later
 * lib-dynamodb lack them, commands go the ordinary way.
 */
function hasInternals(
  command: unknown,
): command is DynamoDBDocumentClientCommand<object, object, object, object, object> & DocumentCommandInternals {
  if (!(command instanceof DynamoDBDocumentClientCommand)) return false;
  const { addMarshallingMiddleware, clientCommand } = command as unknown as Partial<DocumentCommandInternals>;
  return typeof addMarshallingMiddleware === 'function' && typeof clientCommand?.resolveMiddleware === 'function';
}

/**
 * The document client with its middleware resolved once per command class, as the SDK's
 * `cacheMiddleware` option does for a base client (kmsClient) and the document client refuses:
 * its commands add their (un)marshalling to each instance's own stack, and the option would
 * keep the first instance's input. Here the stack is resolved for the first command of each
 * class, marshalling included (the same for every instance of a class), and later commands of
 * the class run through it with their own base command, hence their own input. The requests
 * sent, their signatures and the outputs are those of `send` (test/unit/aws/clients.test.ts);
 * what is saved is resolving the stack, about 0.1 ms of CPU per request on the bench machine.
 * Unlike `cacheMiddleware`, a change to the client's middleware stack (a test counting
 * requests) takes effect: it empties the cache. Commands sent with options or a callback, and
 * base commands, take the ordinary path.
 */
function resolvingOnce(client: DynamoDBDocumentClient): DynamoDBDocumentClient {
  const resolved = new Map<unknown, Resolved>();
  const stack = client.middlewareStack;
  for (const name of ['add', 'addRelativeTo', 'use', 'remove', 'removeByTag'] as const) {
    const change = stack[name].bind(stack) as (...args: unknown[]) => unknown;
    Object.assign(stack, {
      [name]: (...args: unknown[]) => {
        resolved.clear();
        return change(...args);
      },
    });
  }
  const send = client.send.bind(client);
  const sendResolvedOnce = (command: unknown, ...rest: unknown[]): unknown => {
    if (rest.length > 0 || !hasInternals(command)) return (send as (...args: unknown[]) => unknown)(command, ...rest);
    let handler = resolved.get(command.constructor);
    if (handler === undefined) {
      // What DynamoDBDocumentClientCommand.resolveMiddleware does, kept instead of thrown away.
      command.addMarshallingMiddleware(client.config);
      handler = command.clientCommand.resolveMiddleware(
        stack.concat(command.middlewareStack),
        client.config,
        undefined,
      );
      resolved.set(command.constructor, handler);
    }
    return handler(command.clientCommand).then((result) => result.output);
  };
  return Object.assign(client, { send: sendResolvedOnce as DynamoDBDocumentClient['send'] });
}

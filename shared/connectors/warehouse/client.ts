import { Agent as HttpAgent, type ClientRequestArgs } from 'node:http';
import { Agent as HttpsAgent, type RequestOptions } from 'node:https';
import { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Bind, Connection, ConnectionOptions, RowStatement, StatementOption } from 'snowflake-sdk';
import { AppError } from '../../errors/app-error';
import type { ConnectionConfiguration } from '../configuration';
import { serviceHost } from '../endpoint';
import { requestClientCredentialsToken } from '../oauth/client-credentials';
import { OutboundDestinationBlocked, assertDestinationAllowed, guardedLookup } from '../outbound-guard';
import { WarehouseTimeout, warehouseError, type WarehousePhase } from './errors';
import { loadSnowflake } from './sdk';

/**
 * Snowflake sessions through snowflake-sdk, one per operation. The driver is pointed at the
 * connection's host (`accessUrl`), and every socket it opens, to the account and to the
 * result chunks Snowflake hands out, goes through agents of ours (`agentClass`): the outbound
 * guard resolves each destination, and when an operation ends or overruns its bound the
 * agents refuse new sockets with ERR_CANCELED, the one failure the driver does not retry (it
 * otherwise retries a query request up to 1000 times). Each HTTP request is bounded by the
 * connector timeout; logins are not retried.
 */

/** The account, and how to log in to it. Secrets in clear: built inside the call only. */
export interface WarehouseTarget {
  readonly host: string;
  readonly auth:
    | { readonly kind: 'password'; readonly username: string; readonly password: string }
    | {
        readonly kind: 'oauth';
        readonly tokenUrl: string;
        readonly clientId: string;
        readonly clientSecret: string;
        readonly scope: string | null;
      };
  readonly warehouse: string | null;
  readonly database: string | null;
  readonly schema: string | null;
}

const text = (value: string | null | undefined): string => value ?? '';

/**
 * The target of a warehouse configuration (secret in clear); `warehouse` overrides the
 * connection's (an rdbms data source may name one).
 */
export function warehouseTarget(
  configuration: ConnectionConfiguration & { readonly secret: string },
  warehouse?: string | null,
): WarehouseTarget {
  const { auth, settings, secret } = configuration;
  const common = {
    host: text(auth.host),
    warehouse: warehouse || settings.warehouse || null,
    database: settings.database || null,
    schema: settings.schema || null,
  };
  if (auth.auth_type === 'oauth_client_credentials') {
    return {
      ...common,
      auth: {
        kind: 'oauth',
        tokenUrl: text(auth.token_url),
        clientId: text(auth.client_id),
        clientSecret: secret,
        scope: auth.scope ?? null,
      },
    };
  }
  return { ...common, auth: { kind: 'password', username: text(auth.username), password: secret } };
}

/** Values as read from rows: numbers, variants and binaries as Snowflake's own text. */
const FETCH_AS_STRING: StatementOption['fetchAsString'] = ['Number', 'JSON', 'Buffer'];

function cancelled(reason: string): Error {
  return Object.assign(new Error(reason), { code: 'ERR_CANCELED' });
}

/** A socket that fails at once: the request errors with `error`, which the driver does not retry. */
function refusedSocket(error: Error): Socket {
  const refused = new Socket();
  process.nextTick(() => refused.destroy(error));
  return refused;
}

/** Whether the outbound guard lets a socket go to `host` when it is an address literal or a loopback name. */
function literalAllowed(host: string, port: number): boolean {
  try {
    assertDestinationAllowed(new URL(`http://${host.includes(':') ? `[${host}]` : host}:${port}`));
    return true;
  } catch {
    return false;
  }
}

/** The agents of one session: guarded lookups per destination port, and a switch that ends them. */
class SessionAgents {
  private closed = false;
  private readonly http: HttpAgent;
  private readonly https: HttpsAgent;

  constructor() {
    const connect = <O extends ClientRequestArgs>(
      options: O,
      defaultPort: number,
      create: (options: O) => Duplex | null | undefined,
    ) => {
      const host = String(options.host ?? options.hostname ?? '');
      const port = Number(options.port) || defaultPort;
      if (this.closed) return refusedSocket(cancelled('warehouse session closed'));
      // Sockets to an address literal skip DNS, so the lookup below never sees them: a chunk
      // URL Snowflake hands out (an account host is the user's to name) is checked here.
      if (!literalAllowed(host, port))
        return refusedSocket(Object.assign(new OutboundDestinationBlocked(host), { code: 'ERR_CANCELED' }));
      // The guard's allow-list names host:port, so each socket gets the lookup of its own port.
      const lookup = guardedLookup(port);
      // The driver retries any failure it does not know; a refused destination must end the call.
      const guarded: typeof lookup = (hostname, lookupOptions, done) =>
        lookup(hostname, lookupOptions, (error, address, family) =>
          done(
            error instanceof OutboundDestinationBlocked ? Object.assign(error, { code: 'ERR_CANCELED' }) : error,
            address,
            family,
          ),
        );
      return create({ ...options, lookup: guarded });
    };
    this.http = new (class extends HttpAgent {
      override createConnection(options: ClientRequestArgs, callback?: (error: Error | null, stream: Duplex) => void) {
        return connect(options, 80, (guarded) => super.createConnection(guarded, callback));
      }
    })({ keepAlive: true });
    this.https = new (class extends HttpsAgent {
      override createConnection(options: RequestOptions, callback?: (error: Error | null, stream: Duplex) => void) {
        return connect(options, 443, (guarded) => super.createConnection(guarded, callback));
      }
    })({ keepAlive: true });
  }

  /** What the driver's `agentClass` option is called with: the protocol of the request's URL. */
  readonly agentFor = (options: { readonly protocol?: string }): HttpAgent =>
    options.protocol === 'http:' ? this.http : this.https;

  close(): void {
    this.closed = true;
    this.http.destroy();
    this.https.destroy();
  }
}

/**
 * Bounds a driver call: rejects with WarehouseTimeout after `ms` (and runs `onTimeout`, which
 * ends the session's sockets), or with the signal's reason when it aborts. An abort leaves the
 * session usable for a moment, so the caller can still cancel the query it stopped.
 */
function bounded<T>(work: Promise<T>, ms: number, signal: AbortSignal | undefined, onTimeout: () => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const settle = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
    };
    const abort = () => {
      settle();
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      settle();
      onTimeout();
      reject(new WarehouseTimeout());
    }, ms);
    if (signal?.aborted) return abort();
    signal?.addEventListener('abort', abort, { once: true });
    work.then(
      (value) => {
        settle();
        resolve(value);
      },
      (error: unknown) => {
        settle();
        reject(error);
      },
    );
  });
}

export interface SessionOptions {
  /** Bound of each HTTP request (CONNECTOR_TIMEOUT_MS). */
  readonly timeoutMs: number;
  /** Ends every call of the session (a job stopped). */
  readonly signal?: AbortSignal;
}

/** One logged-in session. Every method maps failures to 30-10xx (or 30-12xx, 30-1130). */
export class WarehouseSession {
  private constructor(
    private readonly connection: Connection,
    private readonly agents: SessionAgents,
    private readonly options: SessionOptions,
  ) {}

  /** Logs in: an OAuth token first when the connection uses client credentials. */
  static async open(target: WarehouseTarget, options: SessionOptions): Promise<WarehouseSession> {
    const url = serviceHost(target.host, 'auth.host');
    const token =
      target.auth.kind === 'oauth'
        ? await requestClientCredentialsToken({
            tokenUrl: target.auth.tokenUrl,
            clientId: target.auth.clientId,
            clientSecret: target.auth.clientSecret,
            scope: target.auth.scope,
            timeoutMs: options.timeoutMs,
          })
        : undefined;
    const snowflake = await loadSnowflake();
    const agents = new SessionAgents();
    const connectionOptions: ConnectionOptions & { readonly agentClass: SessionAgents['agentFor'] } = {
      accessUrl: url.origin,
      // Snowflake names the account by the host's first label (xy12345.eu-central-1.snowflakecomputing.com).
      account: url.hostname.split('.')[0] ?? url.hostname,
      ...(token
        ? { authenticator: 'OAUTH', token: token.accessToken }
        : {
            username: target.auth.kind === 'password' ? target.auth.username : '',
            password: target.auth.kind === 'password' ? target.auth.password : '',
          }),
      ...(target.warehouse ? { warehouse: target.warehouse } : {}),
      ...(target.database ? { database: target.database } : {}),
      ...(target.schema ? { schema: target.schema } : {}),
      application: 'DataPreparationService',
      timeout: options.timeoutMs,
      sfRetryMaxLoginRetries: 0,
      clientSessionKeepAlive: false,
      // Values read as text (FETCH_AS_STRING) keep NULL as null, not the word "NULL".
      representNullAsStringNull: false,
      disableQueryContextCache: true,
      agentClass: agents.agentFor,
    };
    let connection: Connection;
    try {
      connection = snowflake.createConnection(connectionOptions);
    } catch (error) {
      agents.close();
      // The driver refuses options it cannot use (an account it cannot spell) before any call.
      throw new AppError('30-1014', { cause: error });
    }
    const session = new WarehouseSession(connection, agents, options);
    try {
      await session.call(
        'login',
        new Promise<void>((resolve, reject) => connection.connect((error) => (error ? reject(error) : resolve()))),
      );
    } catch (error) {
      agents.close();
      throw error;
    }
    return session;
  }

  /** Runs a driver call within the request bound (twice: a retried request), mapping its failure. */
  private async call<T>(phase: WarehousePhase, work: Promise<T>, ms = this.options.timeoutMs * 2): Promise<T> {
    try {
      return await bounded(work, ms, this.options.signal, () => this.agents.close());
    } catch (error) {
      if (this.options.signal?.aborted) throw this.options.signal.reason;
      throw warehouseError(error, phase);
    }
  }

  /**
   * Runs a statement and answers once its result is known (rows not read yet): `describeOnly`
   * compiles without running, `asyncExec` answers at once with the query id.
   */
  execute(
    sqlText: string,
    options: { readonly describeOnly?: boolean; readonly asyncExec?: boolean } = {},
  ): Promise<RowStatement> {
    return this.call(
      'query',
      new Promise<RowStatement>((resolve, reject) => {
        this.connection.execute({
          sqlText,
          ...options,
          // One statement per call whatever the account allows: the local check (30-1009) is lexical.
          parameters: { MULTI_STATEMENT_COUNT: 1 },
          streamResult: true,
          rowMode: 'array',
          fetchAsString: FETCH_AS_STRING,
          complete: (error, statement) => (error ? reject(error) : resolve(statement)),
        });
      }),
    );
  }

  /** Runs a statement with positional binds (`?`) to its end; its answer (a status, a row count) is not read. */
  run(sqlText: string, binds: readonly Bind[] = []): Promise<void> {
    return this.call(
      'query',
      new Promise<void>((resolve, reject) => {
        this.connection.execute({
          sqlText,
          ...(binds.length > 0 ? { binds } : {}),
          parameters: { MULTI_STATEMENT_COUNT: 1 },
          complete: (error) => (error ? reject(error) : resolve()),
        });
      }),
    );
  }

  /** The rows of a small result (a check's answer), read whole. */
  rows(statement: RowStatement): Promise<unknown[][]> {
    return this.call(
      'query',
      new Promise<unknown[][]>((resolve, reject) => {
        const rows: unknown[][] = [];
        statement
          .streamRows()
          .on('data', (row: unknown[]) => rows.push(row))
          .on('error', reject)
          .on('end', () => resolve(rows));
      }),
    );
  }

  /** The status of a query (RUNNING, SUCCESS, FAILED_WITH_ERROR...), from Snowflake's monitoring. */
  queryStatus(queryId: string): Promise<string> {
    return this.call('query', this.connection.getQueryStatus(queryId));
  }

  /** The result of a finished query, to stream; a failed query's error, mapped. */
  fetchResult(queryId: string): Promise<RowStatement> {
    return this.call(
      'query',
      new Promise<RowStatement>((resolve, reject) => {
        this.connection.fetchResult({
          queryId,
          streamResult: true,
          rowMode: 'array',
          fetchAsString: FETCH_AS_STRING,
          complete: (error, statement) => (error ? reject(error) : resolve(statement)),
        });
      }),
    );
  }

  /** Asks Snowflake to stop a query; best effort, bounded, never throws. */
  async cancel(statement: RowStatement): Promise<void> {
    // Not bound to the session's signal: a stopped job is when cancelling matters.
    await bounded(
      new Promise<void>((resolve) => statement.cancel(() => resolve())),
      this.options.timeoutMs,
      undefined,
      () => undefined,
    ).catch(() => undefined);
  }

  /** Logs out (bounded, best effort) and ends every socket of the session. */
  async close(): Promise<void> {
    try {
      await bounded(
        new Promise<void>((resolve) => this.connection.destroy(() => resolve())),
        this.options.timeoutMs,
        undefined,
        () => undefined,
      );
    } catch {
      // The session expires on its own; nothing the caller could do about it.
    } finally {
      this.agents.close();
    }
  }
}

/** Opens a session, runs `work` with it, and always closes it. */
export async function withWarehouseSession<T>(
  target: WarehouseTarget,
  options: SessionOptions,
  work: (session: WarehouseSession) => Promise<T>,
): Promise<T> {
  const session = await WarehouseSession.open(target, options);
  try {
    return await work(session);
  } finally {
    await session.close();
  }
}

/**
 * A protocol-level fake of a Snowflake account on 127.0.0.1, speaking what snowflake-sdk
 * sends (read from node_modules/snowflake-sdk/dist/lib: services/sf.js, connection/statement.js,
 * connection/result/*.js): POST /session/v1/login-request (password or OAUTH token), POST
 * /queries/v1/query-request (synchronous, asyncExec and describeOnly; JSON rowsets with the
 * first rows inline and the rest in result chunks it serves itself behind SSE-C headers, as
 * S3 does), GET /monitoring/queries/{id}, GET /queries/{id}/result, POST
 * /queries/{id}/abort-request, POST /telemetry/send and POST /session?delete=true (logout).
 * Writing statements (CREATE TABLE, INSERT with bindings, transactions) are snowflake-writes.ts,
 * the answer envelope and result sets snowflake-results.ts.
 * Request bodies may come gzip-compressed. Failures are Snowflake's own answers (codes and
 * messages), or a broken network path chosen with `behave`.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { planQuery, SnowflakeSqlError, type FakeCatalog, type FakeTable, type SessionState } from './snowflake-sql';
import { errorBody, failed, ok, readBody, resultBody, send, PARAMETERS, type ResultLayout } from './snowflake-results';
import { FakeWrites, type Bindings } from './snowflake-writes';

export { tableOf, type FakeCatalog, type FakeColumn, type FakeTable, type WireRow } from './snowflake-sql';

export interface FakeUser {
  readonly name: string;
  readonly password: string;
  readonly defaultWarehouse?: string | null;
  readonly defaultDatabase?: string | null;
  readonly defaultSchema?: string | null;
  readonly defaultRole?: string;
}

export interface SnowflakeFakeOptions {
  /** The account name the driver must send (ACCOUNT_NAME). */
  readonly account: string;
  readonly users: readonly FakeUser[];
  /** External OAuth: the user an access token logs in as, or undefined when the token is not valid. */
  readonly oauthUser?: (token: string) => string | undefined;
  readonly warehouses: readonly string[];
  readonly catalog: FakeCatalog;
  /** Rows sent inline in the query answer; the rest goes into chunks. */
  readonly inlineRows?: number;
  readonly chunkRows?: number;
  /**
   * Host of the chunk URLs handed out (default 127.0.0.1, where the fake serves them). Real
   * chunk URLs point at the cloud storage of Snowflake's deployment, a host the user never named.
   */
  readonly chunkHost?: string;
  /** Monitoring polls an asynchronous query stays RUNNING for. */
  readonly runningPolls?: number;
}

/**
 * `normal`; `ip-blocked` (a network policy refuses the caller: 390422 at login);
 * `login-forbidden` (403 with an HTML page, as a host that is no Snowflake account answers);
 * `hang` (accepts connections and never answers); `hang-queries` (logs in, then never answers
 * a query); `internal-error` (every query fails with an incident, 000603).
 */
export type SnowflakeBehaviour =
  'normal' | 'ip-blocked' | 'login-forbidden' | 'hang' | 'hang-queries' | 'internal-error';

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly body: unknown;
}

export interface SnowflakeFake {
  /** http://127.0.0.1:<port>: the connection's host. */
  readonly url: string;
  readonly port: number;
  /** Every request received, in order (passwords and tokens included: it is a test double). */
  readonly requests: RecordedRequest[];
  /** SQL texts of executed queries, in order. */
  readonly queries: string[];
  /** Sessions logged in and not yet logged out. */
  openSessions(): number;
  /** Chunks served, for checks that a large result was streamed in parts. */
  chunksServed(): number;
  /** Queries cancelled through abort-request. */
  readonly aborted: string[];
  /** Tables written through CREATE TABLE and INSERT, with their committed rows. */
  readonly writes: FakeWrites;
  behave(behaviour: SnowflakeBehaviour): void;
  close(): Promise<void>;
}

interface Session extends SessionState {
  readonly user: string;
}

interface QueryRecord {
  readonly id: string;
  readonly session: string;
  status: 'RUNNING' | 'SUCCESS' | 'FAILED_WITH_ERROR' | 'ABORTED';
  pollsLeft: number;
  readonly result?: { table: FakeTable; session: SessionState };
  readonly error?: SnowflakeSqlError;
}

export async function startSnowflakeFake(options: SnowflakeFakeOptions): Promise<SnowflakeFake> {
  const requests: RecordedRequest[] = [];
  const queries: string[] = [];
  const aborted: string[] = [];
  const sessions = new Map<string, Session>();
  const results = new Map<string, QueryRecord>();
  const writes = new FakeWrites();
  const sockets = new Set<Socket>();
  const key = randomBytes(32).toString('base64');
  let behaviour: SnowflakeBehaviour = 'normal';
  let chunks = 0;
  let port = 0;
  const layout: ResultLayout = {
    inlineRows: options.inlineRows ?? 100,
    chunkRows: options.chunkRows ?? 1000,
    chunkUrl: (id, start, rowCount) =>
      `http://${options.chunkHost ?? '127.0.0.1'}:${port}/results/${id}/data_0_0_${start}_${rowCount}?X-Amz-Expires=21600`,
    key,
  };

  const login = (query: Record<string, string>, body: unknown): unknown => {
    const data = ((body ?? {}) as { data?: Record<string, unknown> }).data ?? {};
    const loginName = typeof data.LOGIN_NAME === 'string' ? data.LOGIN_NAME : '';
    if (behaviour === 'ip-blocked') {
      return failed(
        '390422',
        'Incoming request with IP/Token 127.0.0.1 is not allowed to access Snowflake. Contact your account administrator.',
      );
    }
    if (data.ACCOUNT_NAME !== options.account)
      return failed('390100', 'Incorrect username or password was specified.', { loginName });
    let user: FakeUser | undefined;
    if (data.AUTHENTICATOR === 'OAUTH') {
      const name = typeof data.TOKEN === 'string' ? options.oauthUser?.(data.TOKEN) : undefined;
      if (name === undefined)
        return failed('390303', 'Invalid OAuth access token. [0b7c4a36-7f5e-4f43-9d7f-3c1f7f1d2a00]');
      user = options.users.find((candidate) => candidate.name === name);
    } else {
      user = options.users.find(
        (candidate) => candidate.name.toUpperCase() === loginName.toUpperCase() && candidate.password === data.PASSWORD,
      );
      if (!user)
        return failed('390100', 'Incorrect username or password was specified.', {
          loginName,
          nextAction: 'RETRY_LOGIN',
          authnMethod: 'USERNAME_PASSWORD',
        });
    }
    if (!user) return failed('390100', 'Incorrect username or password was specified.');
    // Snowflake logs in even when a named warehouse, database or schema does not exist: the
    // session then simply has none (CURRENT_WAREHOUSE() is NULL).
    const upper = (name: string | undefined) => (name === undefined ? undefined : name.toUpperCase());
    const warehouse = upper(query.warehouse) ?? user.defaultWarehouse ?? null;
    const database = upper(query.databaseName) ?? user.defaultDatabase ?? null;
    const schema = upper(query.schemaName) ?? user.defaultSchema ?? null;
    const session: Session = {
      user: user.name,
      role: upper(query.roleName) ?? user.defaultRole ?? 'PUBLIC',
      warehouse: warehouse !== null && options.warehouses.includes(warehouse) ? warehouse : null,
      database: database !== null && options.catalog[database] ? database : null,
      schema: database !== null && schema !== null && options.catalog[database]?.[schema] ? schema : null,
    };
    const token = `ver:1-hint:${randomBytes(12).toString('hex')}`;
    sessions.set(token, session);
    return ok({
      masterToken: `ver:1-hint:${randomBytes(12).toString('hex')}`,
      token,
      validityInSeconds: 3600,
      masterValidityInSeconds: 14400,
      displayUserName: user.name,
      serverVersion: '8.20.0',
      firstLogin: false,
      healthCheckInterval: 45,
      sessionId: Math.floor(Math.random() * 1e12),
      parameters: PARAMETERS,
      sessionInfo: {
        databaseName: session.database,
        schemaName: session.schema,
        warehouseName: session.warehouse,
        roleName: session.role,
      },
    });
  };

  const sessionOf = (request: IncomingMessage): { token: string; session: Session } | undefined => {
    const token = /^Snowflake Token="([^"]+)"$/.exec(request.headers.authorization ?? '')?.[1];
    const session = token === undefined ? undefined : sessions.get(token);
    return token !== undefined && session ? { token, session } : undefined;
  };

  const runQuery = (
    token: string,
    session: Session,
    body: { sqlText?: unknown; asyncExec?: unknown; describeOnly?: unknown; bindings?: Bindings },
  ) => {
    const id = randomUUID();
    const sql = typeof body.sqlText === 'string' ? body.sqlText : '';
    queries.push(sql);
    let record: QueryRecord;
    try {
      const written = body.describeOnly === true ? undefined : writes.run(sql, body.bindings, token, session);
      const planned = written ? { table: written, source: undefined } : planQuery(sql, session, options.catalog);
      if (planned.source !== undefined && body.describeOnly !== true && session.warehouse === null) {
        throw new SnowflakeSqlError(
          '000606',
          '57P03',
          "No active warehouse selected in the current session.  Select an active warehouse with the 'use warehouse' command.\n",
        );
      }
      const table = body.describeOnly === true ? { ...planned.table, rowCount: 0 } : planned.table;
      record = {
        id,
        session: token,
        status: 'SUCCESS',
        pollsLeft: options.runningPolls ?? 0,
        result: { table, session },
      };
    } catch (error) {
      if (!(error instanceof SnowflakeSqlError)) throw error;
      // Compilation errors come back at once, asynchronous submission or not.
      return errorBody(id, error);
    }
    results.set(id, record);
    if (body.asyncExec === true) return ok({ queryId: id, getResultUrl: `/queries/${id}/result` }, '333334');
    return resultBody(layout, id, record.result!.table, record.result!.session);
  };

  const route = async (request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> => {
    const body = await readBody(request);
    const query = Object.fromEntries(url.searchParams);
    requests.push({ method: request.method ?? '', path: url.pathname, query, body });
    if (behaviour === 'hang') return;
    if (url.pathname === '/session/v1/login-request' && request.method === 'POST') {
      if (behaviour === 'login-forbidden') {
        response.writeHead(403, { 'content-type': 'text/html' });
        return void response.end('<html><body>403 Forbidden</body></html>');
      }
      return send(response, 200, login(query, body));
    }
    const resultChunk = /^\/results\/([0-9a-f-]+)\/data_0_0_(\d+)_(\d+)$/.exec(url.pathname);
    if (resultChunk && request.method === 'GET') {
      const record = results.get(resultChunk[1]!);
      if (!record?.result || request.headers['x-amz-server-side-encryption-customer-key'] !== key) {
        response.writeHead(403, { 'content-type': 'application/xml' });
        return void response.end(
          '<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>',
        );
      }
      chunks += 1;
      const start = Number(resultChunk[2]);
      const rows = Array.from({ length: Number(resultChunk[3]) }, (_, offset) =>
        JSON.stringify(record.result!.table.row(start + offset)),
      );
      const payload = gzipSync(rows.join(','));
      response.writeHead(200, {
        'content-type': 'binary/octet-stream',
        'content-encoding': 'gzip',
        'content-length': payload.length,
      });
      return void response.end(payload);
    }
    const caller = sessionOf(request);
    if (!caller)
      return send(
        response,
        200,
        failed('390111', 'Session no longer exists.  New login required to access the service.'),
      );
    if (url.pathname === '/session' && request.method === 'POST' && query.delete === 'true') {
      sessions.delete(caller.token);
      writes.endSession(caller.token);
      return send(response, 200, ok(null));
    }
    if (url.pathname === '/telemetry/send' && request.method === 'POST') return send(response, 200, ok('Log Received'));
    if (behaviour === 'hang-queries') return;
    if (url.pathname === '/queries/v1/query-request' && request.method === 'POST' && behaviour === 'internal-error') {
      return send(
        response,
        200,
        failed(
          '000603',
          'SQL execution internal error:\nProcessing aborted due to error 300002:2523766418; incident 7291844.',
          { sqlState: 'XX000', queryId: randomUUID() },
        ),
      );
    }
    if (url.pathname === '/queries/v1/query-request' && request.method === 'POST')
      return send(response, 200, runQuery(caller.token, caller.session, (body ?? {}) as object));
    const monitored = /^\/monitoring\/queries\/([0-9a-f-]+)$/.exec(url.pathname);
    if (monitored && request.method === 'GET') {
      const record = results.get(monitored[1]!);
      if (!record) return send(response, 200, ok({ queries: [] }));
      if (record.status === 'RUNNING' || (record.status === 'SUCCESS' && record.pollsLeft > 0)) {
        record.pollsLeft -= 1;
        return send(response, 200, ok({ queries: [{ id: record.id, status: 'RUNNING' }] }));
      }
      return send(response, 200, ok({ queries: [{ id: record.id, status: record.status }] }));
    }
    const fetched = /^\/queries\/([0-9a-f-]+)\/result$/.exec(url.pathname);
    if (fetched && request.method === 'GET') {
      const record = results.get(fetched[1]!);
      if (!record) return send(response, 200, failed('000709', `Statement ${fetched[1]} not found`));
      if (record.status === 'ABORTED')
        return send(
          response,
          200,
          failed('000604', 'SQL execution canceled', { queryId: record.id, sqlState: '57014' }),
        );
      return send(response, 200, resultBody(layout, record.id, record.result!.table, record.result!.session));
    }
    const abort = /^\/queries\/([0-9a-f-]+)\/abort-request$/.exec(url.pathname);
    if (abort && request.method === 'POST') {
      const record = results.get(abort[1]!);
      if (record) record.status = 'ABORTED';
      aborted.push(abort[1]!);
      return send(response, 200, ok(null));
    }
    send(response, 404, { message: 'Not Found' });
  };

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    route(request, response, url).catch(() => send(response, 500, { message: 'fake failure' }));
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    queries,
    aborted,
    writes,
    openSessions: () => sessions.size,
    chunksServed: () => chunks,
    behave(next) {
      behaviour = next;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

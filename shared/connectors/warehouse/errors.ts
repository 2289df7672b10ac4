import { AppError } from '../../errors/app-error';
import type { ErrorCode } from '../../errors/catalogue';
import { isNetworkCode, networkReason } from '../../errors/network-reason';
import { OutboundDestinationBlocked, blockedDestination } from '../outbound-guard';

/**
 * What Snowflake's answers and silences mean (30-10xx). The driver reports a failure as one
 * of its error kinds: OperationFailedError carries Snowflake's own code (390100 at login,
 * 001003 for a query...), NetworkError the socket failure in its cause, RequestFailedError an
 * HTTP status other than 200. Only Snowflake's code and the HTTP status reach the caller,
 * never its message, which quotes SQL and object names; an object's name is the one thing a
 * message is read for (30-1010), and it is the caller's own.
 */

/** Where a failure happened: logging in (the session) or running a statement. */
export type WarehousePhase = 'login' | 'query';

/** Our own bound on a call ran out (CONNECTOR_TIMEOUT_MS), or the call was cut when it did. */
export class WarehouseTimeout extends Error {
  constructor() {
    super('the warehouse did not answer in time');
    this.name = 'WarehouseTimeout';
  }
}

interface DriverError {
  readonly name?: unknown;
  readonly code?: unknown;
  readonly message?: unknown;
  readonly cause?: unknown;
  readonly response?: { readonly statusCode?: unknown; readonly status?: unknown };
}

/** Login refusals that are about who is logging in. */
const CREDENTIALS_REFUSED = new Set([
  '390100', // incorrect username or password
  '390101', // user temporarily locked
  '390102', // user disabled
  '390144', // JWT token invalid
  '390303', // invalid OAuth access token
  '390318', // OAuth access token expired
]);
const IP_NOT_ALLOWED = '390422';
/** Statements cut for running too long (STATEMENT_TIMEOUT_IN_SECONDS, warehouse timeout). */
const STATEMENT_TIMED_OUT = new Set(['000630', '000625']);
const NO_WAREHOUSE = '000606';
const SYNTAX = new Set(['001003', '001007', '001008', '001011', '001012']);
/** Missing objects and columns, and names that need a current database or schema. */
const MISSING = new Set(['002003', '002043', '000904', '090105', '090106']);
/** Socket failures that mean a timeout rather than a path that does not exist. */
const TIMED_OUT = new Set(['ECONNABORTED', 'ETIMEDOUT', 'ESOCKETTIMEDOUT']);

function chainOf(error: unknown): DriverError[] {
  const chain: DriverError[] = [];
  for (
    let current = error;
    typeof current === 'object' && current !== null && chain.length < 8;
    current = (current as DriverError).cause
  ) {
    chain.push(current);
  }
  return chain;
}

/** The name of the element a "does not exist" or "invalid identifier" message quotes. */
function missingElement(message: string): string | undefined {
  return (
    /(?:Object|Table|View|Schema|Database|Warehouse|Stage|Function) '([^']+)' does not exist/i.exec(message)?.[1] ??
    /invalid identifier '([^']+)'/i.exec(message)?.[1]
  );
}

/** The network error code (ECONNREFUSED) in the chain, if any. */
function networkCode(chain: readonly DriverError[]): string | undefined {
  return chain.map((link) => link.code).find(isNetworkCode);
}

/** What the caller sees of a network failure: its reason (network-reason.ts) or "Unknown", never an errno or exception name. */
function networkDetail(code: string | undefined): string {
  return code === undefined ? 'Unknown' : networkReason(code);
}

/** The catalogue code of a failed warehouse call, made while logging in or running a statement. */
export function warehouseError(error: unknown, phase: WarehousePhase): AppError {
  if (error instanceof AppError) return error;
  const chain = chainOf(error);
  const blocked = chain.find((link) => link instanceof OutboundDestinationBlocked);
  if (blocked) return blockedDestination(blocked.host);
  if (chain.some((link) => link instanceof WarehouseTimeout)) return new AppError('30-1005', { cause: error });
  const driver = chain[0] ?? {};

  if (driver.name === 'OperationFailedError' && typeof driver.code === 'string') {
    const code = driver.code;
    const message = typeof driver.message === 'string' ? driver.message : '';
    const details = { provider_error: code };
    if (code === IP_NOT_ALLOWED) return new AppError('30-1015', { cause: error, extraDetails: details });
    if (CREDENTIALS_REFUSED.has(code)) return new AppError('30-1001', { cause: error, extraDetails: details });
    if (code === NO_WAREHOUSE) return new AppError('30-1013', { cause: error, extraDetails: details });
    if (SYNTAX.has(code)) return new AppError('30-1008', { cause: error, extraDetails: details });
    if (MISSING.has(code))
      return new AppError('30-1010', {
        cause: error,
        params: [missingElement(message) ?? 'in the query'],
        extraDetails: details,
      });
    if (STATEMENT_TIMED_OUT.has(code)) return new AppError('30-1005', { cause: error, extraDetails: details });
    // Any other refusal of the login leaves us without a session.
    if (phase === 'login' || code.startsWith('390'))
      return new AppError('30-1014', { cause: error, extraDetails: details });
    return new AppError('30-1003', { cause: error, extraDetails: details });
  }

  if (driver.name === 'NetworkError' || driver.name === 'LargeResultSetError') {
    const status = driver.response?.statusCode ?? driver.response?.status;
    const code = networkCode(chain.slice(1));
    if (code !== undefined && TIMED_OUT.has(code))
      return new AppError('30-1005', { cause: error, extraDetails: { provider_error: networkDetail(code) } });
    return new AppError('30-1002', {
      cause: error,
      extraDetails: {
        provider_error: networkDetail(code),
        ...(typeof status === 'number' ? { provider_status: status } : {}),
      },
    });
  }

  if (driver.name === 'RequestFailedError' || driver.name === 'UnexpectedContentError') {
    const status = driver.response?.statusCode ?? driver.response?.status;
    const details = typeof status === 'number' ? { provider_status: status } : {};
    // A host that answers the login with anything but Snowflake's JSON is no usable account.
    return new AppError(phase === 'login' ? '30-1014' : '30-1003', { cause: error, extraDetails: details });
  }

  return new AppError('30-1003', { cause: error, extraDetails: { provider_error: networkDetail(networkCode(chain)) } });
}

/**
 * Every code a call to a warehouse can end with, for the routes that make one: the
 * warehouse's own (30-10xx) and its OAuth token endpoint's (30-12xx).
 */
export const WAREHOUSE_ERRORS = [
  '30-1001',
  '30-1002',
  '30-1003',
  '30-1005',
  '30-1008',
  '30-1010',
  '30-1013',
  '30-1014',
  '30-1015',
  '30-1200',
  '30-1201',
  '30-1202',
  '30-1203',
  '30-1204',
  '30-1205',
  '30-1206',
  '30-1207',
] as const satisfies readonly ErrorCode[];

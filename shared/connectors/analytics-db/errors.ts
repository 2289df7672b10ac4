import { AppError } from '../../errors/app-error';
import { GoogleTokenFailure } from '../cloud/token';
import { isNetworkCode, networkReason } from '../../errors/network-reason';
import { OutboundDestinationBlocked, blockedDestination } from '../outbound-guard';

interface BigQueryFailure {
  readonly name?: unknown;
  /** HTTP status on the SDK's ApiError, an errno code on network errors. */
  readonly code?: unknown;
  readonly type?: unknown;
  readonly errors?: ReadonlyArray<{ readonly reason?: unknown }>;
}

const PROVIDER_CODE = /^[A-Za-z0-9_.-]{1,64}$/;
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'ESOCKETTIMEDOUT']);

/** What BigQuery called the failure: its JSON error's reason, or a network failure's reason (network-reason.ts); never its message. */
function providerDetails(failure: BigQueryFailure, status: number | undefined): Record<string, string | number> {
  const reason = failure.errors?.[0]?.reason;
  const provider =
    typeof reason === 'string' && PROVIDER_CODE.test(reason)
      ? reason
      : isNetworkCode(failure.code)
        ? networkReason(failure.code)
        : 'Unknown';
  return { provider_error: provider, ...(status === undefined ? {} : { provider_status: status }) };
}

function tokenError(failure: GoogleTokenFailure): AppError {
  const details = {
    step: failure.step,
    provider_error: failure.providerError,
    ...(failure.providerStatus === undefined ? {} : { provider_status: failure.providerStatus }),
  };
  // A token endpoint that refuses the key or the federation is failed authentication; silence or a server fault is a connection error.
  const refused = failure.providerStatus !== undefined && failure.providerStatus >= 400 && failure.providerStatus < 500;
  return new AppError(refused ? '30-1416' : '30-1413', { cause: failure, extraDetails: details });
}

/**
 * The catalogue code of a failed BigQuery call while testing a connection (30-141x): a dataset
 * that is not there is 30-1414, a refused token or credential 30-1416, a denied permission
 * 30-1417, anything else 30-1413 with the provider's reason and status.
 */
export function analyticsDbError(error: unknown, datasetId: string): AppError {
  if (error instanceof AppError) return error;
  const blocked = [error, (error as { cause?: unknown } | undefined)?.cause].find(
    (candidate) => candidate instanceof OutboundDestinationBlocked,
  );
  if (blocked) return blockedDestination(blocked.host);
  if (error instanceof GoogleTokenFailure) return tokenError(error);
  const failure = (error ?? {}) as BigQueryFailure;
  const status = typeof failure.code === 'number' ? failure.code : undefined;
  const timedOut =
    failure.name === 'TimeoutError' ||
    failure.type === 'request-timeout' ||
    (typeof failure.code === 'string' && TIMEOUT_CODES.has(failure.code));
  if (timedOut) return new AppError('30-1413', { cause: error, extraDetails: { provider_error: 'timeout' } });
  switch (status) {
    case 401:
      return new AppError('30-1416', { cause: error, extraDetails: providerDetails(failure, status) });
    case 403:
      return new AppError('30-1417', { cause: error, extraDetails: providerDetails(failure, status) });
    case 404:
      return new AppError('30-1414', { params: [datasetId], cause: error });
    default:
      return new AppError('30-1413', { cause: error, extraDetails: providerDetails(failure, status) });
  }
}

/** What an import was doing: reading the table's metadata, its rows (or a query's result), or running a view's query. */
export type ImportPhase = 'table' | 'rows' | 'query';

/** "Not found: Dataset p:d" is how BigQuery tells a missing dataset from a missing table (both reason notFound). */
const MISSING_DATASET = /^Not found: Dataset /;
/** Refusals that mean "not now" rather than "not allowed": retried by the job as 30-1413. */
const THROTTLED = new Set([
  'rateLimitExceeded',
  'quotaExceeded',
  'backendError',
  'internalError',
  'jobRateLimitExceeded',
]);
/** Reasons of a view's failed query that are about its SQL (a syntax error, a table it reads gone). */
const INVALID_QUERY = new Set(['invalidQuery', 'notFound']);

/** A view's query job refused or failed (its errorResult carries no HTTP status): 30-1424, 30-1426 or 30-1413. */
function queryError(error: unknown, details: Record<string, string | number>): AppError {
  const reason = String(details.provider_error);
  if (INVALID_QUERY.has(reason)) return new AppError('30-1424', { cause: error, extraDetails: details });
  // insufficientPermissions: a token without the bigquery scope (a workload identity connection's own scope).
  if (reason === 'accessDenied' || reason === 'insufficientPermissions')
    return new AppError('30-1426', { cause: error, extraDetails: details });
  return new AppError('30-1413', { cause: error, extraDetails: details });
}

/**
 * The catalogue code of a failed BigQuery call while importing `table` (project.dataset.table):
 * - the table's metadata: a missing dataset is 30-1414, a missing table 30-1425, a table the
 *   account may not read 30-1423;
 * - its rows: a table or result that went away meanwhile is 30-1418, a refusal 30-1423;
 * - a view's query job: its SQL refused (invalidQuery, or a table it reads gone) is 30-1424,
 *   no right to run the job that materializes the view's result 30-1426;
 * - in any phase a refused credential is 30-1416, throttling, silence and anything else 30-1413.
 */
export function analyticsDbImportError(
  error: unknown,
  table: { readonly project: string; readonly dataset: string; readonly table: string },
  phase: ImportPhase,
): AppError {
  const failure = (error ?? {}) as BigQueryFailure & { readonly message?: unknown };
  // An HTTP status: a DOMException (our timeout) carries a legacy numeric code too.
  const status =
    typeof failure.code === 'number' && failure.code >= 100 && failure.code < 600 ? failure.code : undefined;
  const reason = failure.errors?.[0]?.reason;
  // A failed job's errorResult: BigQuery's reason without an HTTP status.
  const jobFailure = status === undefined && typeof reason === 'string' && !(error instanceof AppError);
  // Ours, a blocked destination, a token failure, the network, silence, a refused credential.
  if ((status === undefined && !jobFailure) || status === 401) return analyticsDbError(error, table.dataset);
  const details = providerDetails(failure, status);
  if (THROTTLED.has(String(details.provider_error)))
    return new AppError('30-1413', { cause: error, extraDetails: details });
  if (phase === 'query') return queryError(error, details);
  if (status === 404) {
    if (phase === 'rows') return new AppError('30-1418', { cause: error, extraDetails: details });
    if (typeof failure.message === 'string' && MISSING_DATASET.test(failure.message))
      return new AppError('30-1414', { params: [table.dataset], cause: error });
    return new AppError('30-1425', {
      params: [`${table.project}.${table.dataset}.${table.table}`],
      cause: error,
      extraDetails: details,
    });
  }
  if (status === 403) return new AppError('30-1423', { cause: error, extraDetails: details });
  return new AppError('30-1413', { cause: error, extraDetails: details });
}

/**
 * The catalogue code of a failed BigQuery call while listing tables or reading one table's
 * details: a missing dataset is 30-1414, a missing table (given `table`) 30-1425, throttling
 * 30-1413; otherwise as in a connection test (30-1416, 30-1417, 30-1413).
 */
export function analyticsDbTablesError(error: unknown, dataset: string, table?: string): AppError {
  const failure = (error ?? {}) as BigQueryFailure & { readonly message?: unknown };
  const status =
    typeof failure.code === 'number' && failure.code >= 100 && failure.code < 600 ? failure.code : undefined;
  if (status === undefined || error instanceof AppError) return analyticsDbError(error, dataset);
  const details = providerDetails(failure, status);
  if (THROTTLED.has(String(details.provider_error)))
    return new AppError('30-1413', { cause: error, extraDetails: details });
  const datasetMissing = typeof failure.message === 'string' && MISSING_DATASET.test(failure.message);
  if (status === 404 && table !== undefined && !datasetMissing)
    return new AppError('30-1425', { params: [table], cause: error, extraDetails: details });
  return analyticsDbError(error, dataset);
}

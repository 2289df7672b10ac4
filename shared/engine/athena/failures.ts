import { AppError } from '../../errors/app-error';
import { logger } from '../../log';
import { shortCause } from '../engine-errors';
import type { QueryExecutionOutcome } from './handoff';
import type { ScanCutoff } from './workspace';

/**
 * A query that did not succeed, as a catalogue error that names why (docs/recipe-runs.md):
 * - cancelled at the workgroup's bytes-scanned cutoff: 20-1042 when the tenant's quota set the
 *   cutoff, 10-500 naming the stage's limit otherwise (as a run past its memory is);
 * - a column the code names is not in its input: 20-1031 naming it;
 * - any other fault of the code (Trino's USER_ERROR category: syntax, types, functions): 40-50001 with Trino's reason;
 * - a value that cannot be converted, is out of range or divides by zero: 10-1002;
 * - refused by the tenant's role (the query reached a table, file or location outside the
 *   tenant's: the code never names one, so a fault of the service or of a tampered manifest):
 *   10-403, logged, without the path;
 * - anything else (Athena's own failures): 10-500, without its internals.
 */

/** Athena's words for a query its workgroup's cutoff cancelled. */
const CUTOFF = /bytes scanned limit was exceeded/i;
const MISSING_COLUMN = /COLUMN_NOT_FOUND: .*?Column '([^']+)' cannot be resolved/;
/** Athena's words for a read or write its caller's role may not make (S3, Glue, Lake Formation). */
const ACCESS_DENIED =
  /Permission denied on S3 path|Access ?Denied|is not authorized to perform|Insufficient permissions/i;
const DATA_ERRORS = /^(INVALID_CAST_ARGUMENT|NUMERIC_VALUE_OUT_OF_RANGE|DIVISION_BY_ZERO|INVALID_FUNCTION_ARGUMENT)\b/;
/** Athena's ErrorCategory of faults in the query (1 is the system's, 3 other). */
const USER_ERROR_CATEGORY = 2;

/** Internal names a message may carry (the per-run tables, bucket paths), each as the user knows it. */
export interface MessageNames {
  readonly tables: ReadonlyMap<string, string>;
  readonly database: string;
}

function userMessage(message: string, names: MessageNames): string {
  let text = message.replace(/s3:\/\/[^\s'"]+/g, '<output>');
  for (const [table, alias] of names.tables) text = text.split(table).join(alias);
  return text.split(`${names.database}.`).join('').split(`"${names.database}".`).join('');
}

/** The error of a query that ended FAILED or CANCELLED (not by the run itself). */
export function queryFailure(
  status: QueryExecutionOutcome['Status'],
  cutoff: ScanCutoff,
  names: MessageNames,
): AppError {
  const reason = status?.AthenaError?.ErrorMessage ?? status?.StateChangeReason ?? '';
  if (CUTOFF.test(reason) || CUTOFF.test(status?.StateChangeReason ?? '')) {
    if (cutoff.by === 'quota')
      return new AppError('20-1042', {
        message: `The run stopped: its query would scan more than the ${cutoff.bytes} bytes the tenant's data quota has left`,
        extraDetails: { cause: 'bytes scanned limit' },
      });
    return new AppError('10-500', {
      message: `The run stopped: its query would scan more than the ${cutoff.bytes} bytes a query may scan`,
      extraDetails: { cause: 'bytes scanned limit' },
    });
  }
  if (ACCESS_DENIED.test(reason)) {
    logger.error('a trino-sql query was refused by its tenant role', { error: new Error(reason) });
    return new AppError('10-403', { extraDetails: { cause: "the query reached outside the tenant's data" } });
  }
  const text = userMessage(reason, names);
  const column = MISSING_COLUMN.exec(text)?.[1];
  if (column !== undefined)
    return new AppError('20-1031', { params: [column], extraDetails: { cause: shortCause(text) } });
  if (DATA_ERRORS.test(text)) return new AppError('10-1002', { extraDetails: { cause: shortCause(text) } });
  if (status?.AthenaError?.ErrorCategory === USER_ERROR_CATEGORY)
    return new AppError('40-50001', { extraDetails: { cause: shortCause(text) } });
  logger.error('trino-sql run failed in Athena', { error: new Error(reason || String(status?.State)) });
  return new AppError('10-500');
}

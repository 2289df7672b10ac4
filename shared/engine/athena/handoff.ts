import * as z from 'zod';

/**
 * What a recipe-run worker hands its state machine when a trino-sql node's query is ready,
 * and what the machine hands back (docs/decisions.md, "Athena queries wait in Step Functions").
 * The worker registers the node's tables and writes its CTAS, then returns this handoff under
 * ATHENA_HANDOFF_KEY instead of finishing; the machine's derived `RunQuery` state
 * (infra/athena-branch.ts) runs it with `athena:startQueryExecution.sync`, and calls the worker
 * again with the query's execution, or the state's failure, as the step's `sync` outcome.
 */

/** The key of a work step's output that asks the machine to run a query. */
export const ATHENA_HANDOFF_KEY = 'athena_query';

/**
 * How long one query may run (the `RunQuery` state's TimeoutSeconds): what is left of the
 * machine's hour after the worker's steps, as for a Fargate task. Step Functions stops the
 * query past it, and the run fails with 10-1047.
 */
export const ATHENA_QUERY_TIMEOUT_SECONDS = 3300;

/** The query of one node, as the worker prepared it. */
export const AthenaHandoff = z.strictObject({
  /** The node whose CTAS this is: the build resumes there. */
  node_id: z.int().min(1),
  workgroup: z.string().min(1),
  database: z.string().min(1),
  query_string: z.string().min(1),
  /** The workgroup's cutoff when the query was prepared, and what set it (the failure names it). */
  cutoff: z.strictObject({ bytes: z.int().min(0), by: z.enum(['stage', 'quota']) }),
  /** The tenant's role (tenant-role.ts): the `RunQuery` state runs the query with it (its Credentials). */
  role_arn: z.string().startsWith('arn:'),
});
export type AthenaHandoff = z.infer<typeof AthenaHandoff>;

/** Athena's QueryExecution as the `RunQuery` state keeps it (its ResultSelector): id, status, statistics. */
export const QueryExecutionOutcome = z.looseObject({
  QueryExecutionId: z.string().optional(),
  Status: z
    .looseObject({
      State: z.string().optional(),
      StateChangeReason: z.string().optional(),
      AthenaError: z
        .looseObject({ ErrorCategory: z.number().optional(), ErrorMessage: z.string().optional() })
        .optional(),
    })
    .optional(),
  Statistics: z
    .looseObject({
      DataScannedInBytes: z.number().optional(),
      EngineExecutionTimeInMillis: z.number().optional(),
    })
    .optional(),
});
export type QueryExecutionOutcome = z.infer<typeof QueryExecutionOutcome>;

/** The `sync` outcome: the query's execution when it succeeded, the state's error (Catch) otherwise. */
export const AthenaOutcome = z.union([
  z.object({ QueryExecution: QueryExecutionOutcome }),
  z.object({ Error: z.string(), Cause: z.string().optional() }),
]);
export type AthenaOutcome = z.infer<typeof AthenaOutcome>;

/** The query's execution a failed state carries in its Cause (Step Functions' .sync puts the last GetQueryExecution there). */
export function failedExecution(cause: string | undefined): QueryExecutionOutcome | undefined {
  try {
    const parsed = z.object({ QueryExecution: QueryExecutionOutcome }).safeParse(JSON.parse(cause ?? ''));
    return parsed.success ? parsed.data.QueryExecution : undefined;
  } catch {
    return undefined;
  }
}

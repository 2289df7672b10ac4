import { BatchDeleteTableCommand, EntityNotFoundException, GetTablesCommand } from '@aws-sdk/client-glue';
import { deletePrefix } from '../../aws/data-bucket';
import { logger } from '../../log';
import { glueClient } from './clients';
import { athenaDatabase, runTablePrefix } from './run-prefix';

/** Glue's most tables per GetTables page and per BatchDeleteTable call (100). */
const GLUE_PAGE = 100;
/** Pages read at most: a job registers a table per input and node, far fewer than this allows. */
const MAX_PAGES = 20;

/** Every Glue table of the job's runs in the tenant's database; none when the database was never made. */
async function jobTables(tenantId: string, jobId: string): Promise<string[]> {
  const names: string[] = [];
  let nextToken: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const listed = await glueClient()
      .send(
        new GetTablesCommand({
          DatabaseName: athenaDatabase(tenantId),
          // A regular expression over the names; the prefix holds only [a-z0-9_].
          Expression: `${runTablePrefix(jobId)}.*`,
          MaxResults: GLUE_PAGE,
          NextToken: nextToken,
        }),
      )
      .catch((error: unknown) => {
        if (error instanceof EntityNotFoundException) return { TableList: [], NextToken: undefined };
        throw error;
      });
    names.push(...(listed.TableList ?? []).flatMap((table) => (table.Name === undefined ? [] : [table.Name])));
    nextToken = listed.NextToken;
    if (nextToken === undefined) break;
  }
  return names;
}

/**
 * What a cancelled job's trino-sql runs leave: the Athena folders under its nodes' prefixes
 * (manifests, a CTAS's output) and the Glue tables registered for them. A trino-sql node's
 * query waits in the state machine, which StopExecution ends with no worker left to remove
 * them (docs/decisions.md, "Athena queries wait in Step Functions"). Best effort: a failure is
 * logged, and the cancel still answers.
 */
export async function removeCancelledRuns(tenantId: string, jobId: string, prefixes: readonly string[]): Promise<void> {
  const dropTables = async () => {
    const names = await jobTables(tenantId, jobId);
    for (let start = 0; start < names.length; start += GLUE_PAGE)
      await glueClient().send(
        new BatchDeleteTableCommand({
          DatabaseName: athenaDatabase(tenantId),
          TablesToDelete: names.slice(start, start + GLUE_PAGE),
        }),
      );
  };
  await Promise.all([...prefixes.map((prefix) => deletePrefix(prefix)), dropTables()]).catch((error: unknown) =>
    logger.warn('removing a cancelled run’s Athena files and tables failed', { jobId, error: error as Error }),
  );
}

import type { Principal } from '../auth/principal';
import { actorOf } from '../db/actor';
import { AppError } from '../errors/app-error';
import { dataVersions } from '../data-tables/versions';
import { jobLaunch } from '../jobs/launch';
import { startJob } from '../jobs/start';
import type { LaunchMode } from '../model/job';
import type * as z from 'zod';
import type { ExecuteRecipeRequest, RecipeRunStatus } from '../model/recipe-run';
import { assertQuotaAllowsStart } from '../quota/enforcement';
import { recipeRunJob } from './jobs';
import { readRunStatus } from './response';
import type { BuildStep } from './jobs';
import { queueRun, type RunRequest } from './run-queue';

/** The recipe node a run builds. */
export interface NodeRef {
  readonly dataset_id: number;
  readonly version_number: number;
  readonly node_id: number;
}

/**
 * The run the caller asks for, SHALLOW analysis unless told: FULL analysis is its own
 * permission, "Analyze recipe schema" (spec 2.7, 5.2), 10-403 without it.
 */
export function requestedNodeRun(principal: Principal, body: z.infer<typeof ExecuteRecipeRequest>): RunRequest {
  const depth = body.schema_analysis_depth ?? 'SHALLOW';
  if (depth === 'FULL' && !principal.permissions.includes('schema:analyze')) {
    throw new AppError('10-403', { extraDetails: { required_permission: 'schema:analyze' } });
  }
  return { use_sample: body.use_sample, schema_analysis_depth: depth };
}

/**
 * The bytes of the table versions a full run reads (their Parquet's data_bytes), each once: what
 * the run's state machine weighs to choose Lambda or Fargate. A run on samples reads at most a
 * sample of each (10,000 rows): 0. Outputs of upstream nodes are not counted: a rebuilt one has
 * no size yet, and one kept is smaller than the tables it came from.
 */
async function tableBytesRead(tenantId: string, build: readonly BuildStep[], request: RunRequest): Promise<number> {
  if (request.use_sample) return 0;
  const versions = new Set(
    build.flatMap((step) =>
      step.inputs.sources.flatMap((source) =>
        source.data_table_id === undefined || source.data_version_number === undefined
          ? []
          : [`${source.data_table_id}/${source.data_version_number}`],
      ),
    ),
  );
  const sizes = await Promise.all(
    [...versions].map(async (key) => {
      const [tableId, versionNumber] = key.split('/').map(Number) as [number, number];
      const version = await dataVersions.find(tenantId, tableId, versionNumber);
      return version?.metadata?.data_bytes ?? 0;
    }),
  );
  return sizes.reduce((sum, bytes) => sum + bytes, 0);
}

/**
 * Queues a run of a recipe node for the caller and starts its job (the quota permitting);
 * answers the node's run status, QUEUED with the job's id. Shared by the execute route,
 * the apps' `run_dataset_node` action and the schedules' ticks; `launch` is what the caller
 * chose (requestedLaunch): a build with a trino-sql node stays on Lambda, and a forced
 * `fargate` of one is 10-1400 with nothing queued (run-launch.ts).
 */
export async function startNodeRun(
  principal: Principal,
  node: NodeRef,
  request: RunRequest,
  launch: LaunchMode = 'auto',
): Promise<RecipeRunStatus> {
  const { tenantId } = principal;
  await assertQuotaAllowsStart(tenantId);
  const queued = await queueRun(
    tenantId,
    actorOf(principal),
    node.dataset_id,
    node.version_number,
    node.node_id,
    request,
    launch,
  );
  const { job, build } = queued;
  await startJob(
    recipeRunJob,
    job,
    { ...node, ...request, build },
    jobLaunch(queued.launch, await tableBytesRead(tenantId, build, request)),
  );
  return readRunStatus(tenantId, node.dataset_id, node.version_number, node.node_id);
}

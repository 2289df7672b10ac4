import type { Principal } from '../auth/principal';
import { actorOf } from '../db/actor';
import { AppError } from '../errors/app-error';
import { startJob } from '../jobs/start';
import type * as z from 'zod';
import type { ExecuteRecipeRequest, RecipeRunStatus } from '../model/recipe-run';
import { assertQuotaAllowsStart } from '../quota/enforcement';
import { recipeRunJob } from './jobs';
import { readRunStatus } from './response';
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
 * Queues a run of a recipe node for the caller and starts its job (the quota permitting);
 * answers the node's run status, QUEUED with the job's id. Shared by the execute route and
 * the apps' `run_dataset_node` action.
 */
export async function startNodeRun(principal: Principal, node: NodeRef, request: RunRequest): Promise<RecipeRunStatus> {
  const { tenantId } = principal;
  await assertQuotaAllowsStart(tenantId);
  const { job, build } = await queueRun(
    tenantId,
    actorOf(principal),
    node.dataset_id,
    node.version_number,
    node.node_id,
    request,
  );
  await startJob(recipeRunJob, job, { ...node, ...request, build });
  return readRunStatus(tenantId, node.dataset_id, node.version_number, node.node_id);
}

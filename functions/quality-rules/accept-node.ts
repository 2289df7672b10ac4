import { httpHandler } from '../../shared/http/handler';
import { acceptNodeQualityFailure } from '../../shared/quality-targets/accept';
import { nodeRuns } from '../../shared/datasets/runs';
import { outputAttribute, outputKindOf } from '../../shared/datasets/run-items';
import { AppError } from '../../shared/errors/app-error';
import { qualityRuleRoutes } from './routes';

/** POST .../nodes/{node_id}/quality/accept: the output's FAILED report accepted (shared/quality-targets/accept.ts). */
export const handler = httpHandler(qualityRuleRoutes.acceptNode, async ({ params, body, principal }) => {
  const at = {
    datasetId: params.dataset_id,
    graphVersion: params.version_number,
    nodeId: params.node_id,
    useSample: body.use_sample ?? false,
  };
  await acceptNodeQualityFailure(principal, at, body.reason ?? null);
  const run = await nodeRuns.find(principal.tenantId, at.datasetId, at.graphVersion, at.nodeId);
  const report = run?.[outputAttribute(outputKindOf(at.useSample))]?.quality;
  // A run that rewrote the output since the acceptance answers for its own report.
  if (!report) throw new AppError('10-1006');
  return { body: report };
});

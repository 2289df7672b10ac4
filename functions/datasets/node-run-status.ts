import { readRunStatus } from '../../shared/datasets/response';
import { AppError } from '../../shared/errors/app-error';
import { httpHandler } from '../../shared/http/handler';
import { datasetRoutes } from './routes';

export const handler = httpHandler(datasetRoutes.nodeRunStatus, async ({ params, query, principal }) => {
  const status = await readRunStatus(principal.tenantId, params.dataset_id, params.version_number, params.node_id);
  if (status.run_state === 'NOT_RUN') throw new AppError('20-1013');
  // Polling one run: a newer run (or another job id) is not the one asked about.
  if (query.job_id !== undefined && status.execution?.job_id !== query.job_id) throw new AppError('20-1015');
  return { body: status };
});

import { recipeRunJob } from '../../shared/datasets/jobs';
import { targetExportJob } from '../../shared/exports/jobs';
import { defineRoute } from '../../shared/http/route';
import { BundleIdParams } from '../../shared/model/app-bundle';
import { RunParams, RunRequest, RunResponse } from '../../shared/model/app-install';
import { APPS_FEATURE } from './bundle-routes';
import { SDK_TOKEN } from './session-routes';

/**
 * The runs of apps' actions: apart from the session routes because starting a run may start
 * node-run and export jobs, whose declarations only these functions need to carry.
 */
const tag = 'apps';

export const runRoutes = {
  startRun: defineRoute({
    operationId: 'startAppRun',
    method: 'POST',
    path: '/apps/installs/{bundle_id}/runs',
    summary: 'Run an action of an app',
    description: `Carries out one of the manifest's run_actions with the app's credentials: a service operation (list tables, preview a table version, run a dataset node, start an export) or a call to the app's backend. A run that starts a job answers its id; follow it on the job's own status route. ${SDK_TOKEN} ${APPS_FEATURE}`,
    tag,
    handler: 'apps/start-run',
    permission: 'data:read',
    request: { params: BundleIdParams, body: RunRequest },
    response: { status: 201, description: 'The run, ended', body: RunResponse },
    errors: ['10-1501', '80-8014', '80-8022', '80-8029', '80-8030', '80-8031', '80-8032', '80-8036'],
    // A preview reads the table's files; node runs and exports start their jobs.
    access: { table: 'write', dataBucket: 'read', startsJobs: [recipeRunJob, targetExportJob] },
  }),
  getRun: defineRoute({
    operationId: 'getAppRun',
    method: 'GET',
    path: '/apps/installs/{bundle_id}/runs/{run_id}',
    summary: 'Get a run of an app',
    description: APPS_FEATURE,
    tag,
    handler: 'apps/get-run',
    permission: 'data:read',
    request: { params: RunParams },
    response: { status: 200, description: 'The run', body: RunResponse },
    errors: ['10-1501', '80-8014', '80-8034'],
    access: { table: 'read' },
  }),
};

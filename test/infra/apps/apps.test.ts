/**
 * The app routes as deployed (docs/apps.md): their functions touch the data bucket only under
 * the `apps/` prefix, only the session start may sign tokens, the asset route is public (no
 * authorizer), and cdk-nag finds nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleRoutes } from '../../../functions/apps/bundle-routes';
import { installRoutes } from '../../../functions/apps/install-routes';
import { runRoutes } from '../../../functions/apps/run-routes';
import { sessionRoutes } from '../../../functions/apps/session-routes';
import { installAppJob, uninstallAppJob } from '../../../shared/apps/install-job';
import { recipeRunJob } from '../../../shared/datasets/jobs';
import { targetExportJob } from '../../../shared/exports/jobs';
import {
  actionsOf,
  awsSolutionsReport,
  functionOf,
  grants,
  SYNTH_TIMEOUT_MS,
  synthesize,
  type SynthesizedStage,
} from '../synth';

const ROUTES = [
  ...Object.values(bundleRoutes),
  ...Object.values(installRoutes),
  ...Object.values(sessionRoutes),
  ...Object.values(runRoutes),
];
let stage: SynthesizedStage;

beforeAll(() => {
  stage = synthesize({
    stage: 'apps',
    routes: ROUTES,
    jobs: [installAppJob, uninstallAppJob, recipeRunJob, targetExportJob],
    nag: true,
    bundle: false,
  });
}, SYNTH_TIMEOUT_MS);
afterAll(() => stage?.close());

/** The S3 object resources a function's grants name, as the text after the bucket's ARN. */
function objectResources(handler: string): string[] {
  return grants(functionOf(stage, handler))
    .filter((grant) => grant.action.startsWith('s3:') && grant.action !== 's3:ListBucket')
    .map((grant) => JSON.stringify(grant.resource));
}

describe('app functions', () => {
  it('reach the data bucket’s objects only under apps/', () => {
    for (const handler of ['apps/upload-version', 'apps/publish-version', 'apps/asset']) {
      const resources = objectResources(handler);
      expect(resources.length, handler).toBeGreaterThan(0);
      for (const resource of resources) expect(resource, handler).toMatch(/\/apps\/\*"\]*\]*\}*$/);
    }
    expect([...actionsOf(functionOf(stage, 'apps/asset'))].filter((action) => action.startsWith('s3:Put'))).toEqual([]);
  });

  it('leave the bucket alone where they need no files, and only the session start signs tokens', () => {
    for (const handler of ['apps/install', 'apps/put-value', 'apps/session-activity']) {
      const actions = [...actionsOf(functionOf(stage, handler))];
      expect(
        actions.filter((action) => action.startsWith('s3:')),
        handler,
      ).toEqual([]);
      expect(actions.includes('kms:Sign'), handler).toBe(false);
    }
    expect(actionsOf(functionOf(stage, 'apps/start-session')).has('kms:Sign')).toBe(true);
  });

  it('let runs read table files (a preview) and start node runs and exports, never write the bucket', () => {
    const actions = [...actionsOf(functionOf(stage, 'apps/start-run'))];
    expect(actions).toContain('s3:GetObject');
    expect(actions).toContain('states:StartExecution');
    expect(actions.filter((action) => action.startsWith('s3:Put') || action.startsWith('s3:Delete'))).toEqual([]);
    expect(actions.includes('kms:Sign')).toBe(false);
  });

  it('pass the AWS Solutions checks', () => {
    const nag = awsSolutionsReport(stage);
    expect(nag.conclusion).toBe('success');
    expect(nag.violations).toEqual([]);
  });
});

/**
 * What test/infra/job-machines.test.ts checks the synthesized jobs against: the routes it
 * synthesizes with, and each job's machine, work state and worker.
 */
import { routes } from '../../functions/routes';

/** The data-tables routes, and the routes of another domain that start a job. */
export const DATASET_STARTERS = ['executeDatasetNode', 'analyseDatasetNodeSchema'];
export const DOMAIN_ROUTES = routes.filter(
  (route) => route.tag === 'data-tables' || DATASET_STARTERS.includes(route.operationId),
);

/** Each job: its machine, its work state, the worker that state runs. */
export const JOBS = [
  { machine: 'import', workState: 'Work', worker: 'import-data-version' },
  { machine: 'schema-analysis', workState: 'Work', worker: 'analyse-schema' },
  { machine: 'direct-export', workState: 'Work', worker: 'export-direct' },
  { machine: 'multi-part-export', workState: 'Work', worker: 'export-multi-part' },
  { machine: 'export', workState: 'Work', worker: 'export-to-target' },
  { machine: 'transfer', workState: 'Work', worker: 'transfer-to-pricing' },
  { machine: 'recipe-run', workState: 'Work', worker: 'run-recipe' },
  { machine: 'node-schema-analysis', workState: 'Work', worker: 'analyse-node-schema' },
  { machine: 'install-app', workState: 'Work', worker: 'provision-app' },
  { machine: 'uninstall-app', workState: 'Work', worker: 'deprovision-app' },
] as const;
export const FAILURE_RECORDER = 'record-job-failure';
export const ENGINE_WORKERS = ['import-data-version', 'analyse-schema', 'run-recipe', 'analyse-node-schema'];

export const LAMBDA_TRANSIENT_ERRORS = [
  'Lambda.ServiceException',
  'Lambda.AWSLambdaException',
  'Lambda.SdkClientException',
  'Lambda.TooManyRequestsException',
];

import type { RouteSpec } from '../shared/http/route';
import { tenantRoutes } from './admin/tenant-routes';
import { featureToggleRoutes } from './admin/toggle-routes';
import { bundleRoutes } from './apps/bundle-routes';
import { installRoutes } from './apps/install-routes';
import { runRoutes } from './apps/run-routes';
import { sessionRoutes } from './apps/session-routes';
import { authRoutes } from './auth/routes';
import { connectionRoutes } from './connections/routes';
import { conversationRoutes } from './conversations/routes';
import { dataSourceRoutes } from './data-sources/routes';
import { dataTableCancelRoutes } from './data-tables/cancel-routes';
import { dataTableRoutes } from './data-tables/routes';
import { datasetAnalysisRoutes } from './datasets/analysis-routes';
import { datasetCancelRoutes } from './datasets/cancel-routes';
import { datasetReleaseRoutes } from './datasets/release-routes';
import { datasetRoutes } from './datasets/routes';
import { exportCancelRoutes } from './exports/cancel-routes';
import { exportRoutes } from './exports/routes';
import { lineageRoutes } from './lineage/routes';
import { metaRoutes } from './meta/routes';
import { qualityRuleRoutes } from './quality-rules/routes';
import { quotaRoutes } from './quota/routes';
import { recipeRoutes } from './recipes/routes';
import { retentionRoutes } from './retention/routes';
import { scheduleRoutes } from './schedules/routes';
import { targetRoutes } from './targets/routes';
import { tokenRoutes } from './tokens/routes';
import { transferCancelRoutes } from './transfers/cancel-routes';
import { transferRoutes } from './transfers/routes';

/**
 * The route table: every operation of the API. CDK deploys a function and an API route for
 * each entry, the local twin serves them, and GET /openapi.json documents them.
 */
const domains = [
  authRoutes,
  metaRoutes,
  connectionRoutes,
  dataSourceRoutes,
  dataTableRoutes,
  dataTableCancelRoutes,
  qualityRuleRoutes,
  recipeRoutes,
  datasetRoutes,
  datasetReleaseRoutes,
  datasetAnalysisRoutes,
  datasetCancelRoutes,
  lineageRoutes,
  scheduleRoutes,
  targetRoutes,
  exportRoutes,
  exportCancelRoutes,
  transferRoutes,
  transferCancelRoutes,
  retentionRoutes,
  conversationRoutes,
  bundleRoutes,
  installRoutes,
  sessionRoutes,
  runRoutes,
  tokenRoutes,
  quotaRoutes,
  featureToggleRoutes,
  tenantRoutes,
] as const;

export const routes: readonly RouteSpec[] = domains.flatMap((domain) => Object.values<RouteSpec>(domain));

/** Every route with its literal types (schemas, method, path), by operationId. */
export type RouteTable = { [R in RouteOf<(typeof domains)[number]> as R['operationId']]: R };

/** The routes of one domain object, distributed over a union of domains. */
type RouteOf<D> = D extends unknown ? D[keyof D] : never;

/** The route table by operationId, with each route's literal types: typed clients are derived from it. */
export const routeTable = Object.fromEntries(routes.map((route) => [route.operationId, route])) as RouteTable;

export type OperationId = keyof RouteTable;

/** Answers requests no route matches (API Gateway's $default route): 404, or 405 for a wrong method. */
export const FALLBACK_HANDLER = 'meta/not-found';

/** The API's Lambda authorizer, run before every route whose permission is not null. */
export const AUTHORIZER_HANDLER = 'auth/authorizer';

/** The domains of the API: OpenAPI tags, and one nested CDK stack each. */
export const API_TAGS: Readonly<Record<string, string>> = {
  admin: 'The admin plane (platform-admin role only): feature toggles and tenants',
  apps: 'Apps: bundles of static assets and a manifest, their installs, links, sessions, runs and key-value stores',
  auth: 'Client credentials exchange for access tokens',
  conversations:
    'AI-assistant conversations: questions answered from the tenant’s own tables and recipes, with SQL the analyzer accepts',
  connections: 'Connections to external data systems; secrets are write-only',
  'data-sources':
    'Data sources: what to read through a connection (a bucket path, a query, a shared table or a table reference)',
  'data-tables': 'Data tables, their versioned imports, previews, samples and schema analyses',
  datasets: 'Datasets: versioned transformation graphs of data table and recipe nodes',
  exports:
    'Exports of data table and dataset versions: to an S3-compatible store named in the request, or into the parts of a multipart upload',
  meta: 'The API describing itself: OpenAPI document and error types',
  'quality-rules':
    'Data-quality rules on data tables, checked after each import; a failed error rule blocks release, export and transfer until accepted',
  quota: 'Quota contracts (CPU hours, data transfer) and the usage measured against them',
  schedules:
    'Schedules that build a dataset’s graph version by cron, rate or a source table’s new version, with their history',
  retention: 'The tenant’s retention policy: which versions expire, and what the daily sweep would delete',
  recipes: 'Recipes: versioned SQL transformations (DuckDB SQL) over aliased tables, checked by the SQL analyzer',
  targets: 'Export targets: a connection that may be written to, and where in it exports write',
  transfers:
    'Transfers of released dataset outputs and data table versions into a pricing system, through a pricing target',
  tokens: 'Tenant tokens (the tenant’s own API clients, each with roles) and the roles they may carry',
};

export const API_INFO = {
  title: 'Data Preparation Service',
  version: '1.0.0',
  description:
    'Connect data systems, import versioned tables, build SQL recipes and transformation graphs, and export results. Every failure is an RFC 7807 problem with a catalogue code.',
};

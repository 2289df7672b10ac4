/**
 * The single table's keys. Every key starts with the tenant (`T#<tenant>#`), so no query can
 * cross tenants, and only this module spells keys out.
 *
 *   entity           pk T#<t>#<KIND>               sk <id, zero-padded>
 *   name claim       pk T#<t>#<KIND>#NAME          sk <normalised name>
 *   id counter       pk T#<t>#COUNTER              sk <KIND>
 *   idempotency      pk T#<t>#<KIND>#IDEMPOTENCY   sk <Idempotency-Key>
 *   API client       pk T#<t>#CLIENT               sk <client id>
 *   role             pk T#<t>#ROLE                 sk <role id>
 *   child collection pk T#<t>#<KIND>#<id>          sk #HEAD (bookkeeping) | V#<n, zero-padded> (versions)
 *                                                     | U#<n>#<user> (a use of version n, e.g. a recipe node)
 *                                                     | R#<n>#LOCK, R#<n>#N#<node> (graph version n's run lock, its nodes' runs)
 *   usage counter    pk T#<t>#USAGE                sk <metric>#<period>
 *   quota contracts  pk T#<t>#QUOTA_CONTRACT#HEAD  sk #HEAD (how many contracts the tenant has)
 *   job resource     pk T#<t>#<KIND>               sk <job id> | <job id>#SECRET (its sealed credentials)
 *   conversation     pk T#<t>#CONVERSATION#<uuid>  sk M#<n, zero-padded> (its messages; the conversation is a record)
 *
 * The platform's own records (the admin plane: feature toggles, the tenant registry) belong to
 * no tenant. Their keys start with `P#`, which no tenant key can, so they stay apart too:
 *
 *   platform record  pk P#<COLLECTION>             sk <record id>
 */
/**
 * Every kind of stored item, named once. A kind is the `<KIND>` segment of keys and the
 * `kind` attribute of items; what it may be used for is its role:
 *
 *   entity     a top-level resource: ids from its counter, names claimed, children under it
 *   child      an item in an entity's collection (a data table's versions)
 *   operation  an operation whose Idempotency-Key records are not one entity's
 *   job        a job that is its own resource, read by its job id (a direct export)
 *   record     an item keyed by its own string id in one partition of the tenant (shared/db/record-store.ts)
 */
export const ENTITY_KINDS = {
  CONNECTION: 'entity',
  DATA_SOURCE: 'entity',
  DATA_TABLE: 'entity',
  RECIPE: 'entity',
  /** Datasets: their transformation graph versions live in their item collection (shared/datasets/graphs.ts). */
  DATASET: 'entity',
  /** Export targets (shared/targets): uses of their connection (ref_targets, 30-1508); exports in progress on their head item (30-6005). */
  TARGET: 'entity',
  DATA_VERSION: 'child',
  RECIPE_VERSION: 'child',
  /** One version of a dataset's transformation graph, nodes and bindings included (one item: never half a graph). */
  TRANSFORMATION_GRAPH: 'child',
  /** A dataset node's use of a recipe version, kept beside the version (shared/recipes/usages.ts). */
  RECIPE_VERSION_USAGE: 'child',
  /** The run lock of a graph version: the recipe-run job that builds its nodes (shared/datasets/run-lock.ts). */
  GRAPH_RUN_LOCK: 'child',
  /** The run state and outputs of one recipe node of a graph version (shared/datasets/runs.ts). */
  RECIPE_NODE_RUN: 'child',
  DATA_VERSION_BATCH_CREATE: 'operation',
  /** Idempotency-Key records of recipe node runs (POST .../nodes/{node_id}/execute). */
  RECIPE_NODE_EXECUTE: 'operation',
  /** Exports of a version to a target (shared/exports/target-exports.ts); their job status is on the entity item. */
  EXPORT: 'entity',
  /** Transfers of a version into a pricing target (shared/transfers/store.ts); their job status is on the entity item. */
  TRANSFER: 'entity',
  /** Data-quality rules on data tables (shared/quality/store.ts): checked by each import of their table. */
  QUALITY_RULE: 'entity',
  /** Direct exports to an object store named in the request (shared/exports/store.ts). */
  DIRECT_EXPORT: 'job',
  /** Multi-part exports to the caller's pre-signed part URLs (shared/exports/store.ts). */
  MULTI_PART_EXPORT: 'job',
  /** API clients (tenant tokens) of the identity provider (shared/identity): their secret only as a slow hash. */
  CLIENT: 'record',
  /** Roles of the identity provider, each granting permissions; several may share a name (30-7002). */
  ROLE: 'record',
  /** Quota contracts (shared/quota/store.ts): never deleted; their windows never overlap. */
  QUOTA_CONTRACT: 'entity',
  /**
   * Tenants of the admin plane's registry (platform records, shared/tenants): the kind their
   * creates' Idempotency-Key records are kept under, in the platform's own tenant.
   */
  TENANT: 'record',
  /** What the retention sweep deletes: pending while it deletes, then done (shared/retention/deletions.ts). */
  RETENTION_DELETION: 'record',
  /** AI-assistant conversations (shared/assistant/conversations.ts), keyed by their UUID; messages in their own partition. */
  CONVERSATION: 'record',
  /** One message of a conversation, numbered from 1 (keys.conversationMessage). */
  CONVERSATION_MESSAGE: 'child',
  /** Schedules of dataset builds (shared/schedules): their history and new-version marks are their children. */
  SCHEDULE: 'entity',
  /** One data-quality check of a recipe node's output, in its dataset's collection (shared/quality/node-history.ts). */
  NODE_QUALITY_CHECK: 'child',
  /** One entry of a schedule's bounded history: a tick and the build it started, or why none (shared/schedules/history.ts). */
  SCHEDULE_RUN: 'child',
  /** A data version a schedule has handled: its build starts once per version (shared/schedules/new-version.ts). */
  SCHEDULE_VERSION_MARK: 'child',
  /** App bundles (shared/apps/bundles.ts): their versions are on their item. */
  APP_BUNDLE: 'entity',
  /** App installs, keyed by bundle id: one per tenant and bundle (shared/apps/installs.ts). */
  APP_INSTALL: 'record',
  /** The tenant's links to providers apps require, keyed by provider name (shared/apps/links.ts). */
  APP_LINK: 'record',
  /** App sessions, keyed by session id (shared/apps/sessions.ts). */
  APP_SESSION: 'record',
  /** Runs of apps' declared actions, keyed by run id (shared/apps/runs.ts). */
  APP_RUN: 'record',
  /** The key-value stores of installs, keyed by `<bundle id>#<key>` (shared/apps/values.ts). */
  APP_VALUE: 'record',
} as const;

export type EntityKind = keyof typeof ENTITY_KINDS;
type KindOf<Role> = { [K in EntityKind]: (typeof ENTITY_KINDS)[K] extends Role ? K : never }[EntityKind];
/** Kinds of top-level resources: the only ones with ids, names and children. */
export type TopLevelKind = KindOf<'entity'>;
/** Operations whose Idempotency-Key records hold their answer (idempotent-responses.ts): batches, and the starts of job resources. */
export type OperationKind = KindOf<'operation' | 'job'>;
/** Kinds of records keyed by their own string id (record-store.ts). */
export type RecordKind = KindOf<'record'>;
/** What an idempotent create makes (idempotent-create.ts): an entity, or a record. */
export type CreatedKind = TopLevelKind | RecordKind;
/** What an Idempotency-Key is recorded under: creates of entities and records, or an operation. */
export type IdempotentKind = KindOf<'entity' | 'operation' | 'job' | 'record'>;
/** Jobs that are their own resource, keyed by job id. */
export type JobKind = KindOf<'job'>;

/** Collections of platform records (shared/db/platform-records.ts), named once. */
export const PLATFORM_COLLECTIONS = {
  /** Feature toggle settings: a default per toggle, and tenant overrides (shared/features/store.ts). */
  FEATURE_TOGGLE: 'FEATURE_TOGGLE',
  /** The tenant registry (shared/tenants/store.ts). */
  TENANT: 'TENANT',
  /** Each tenant's retention policy, keyed by tenant id: the sweep walks the tenants that have one (shared/retention). */
  RETENTION_POLICY: 'RETENTION_POLICY',
  /** The retention sweep's progress through the tenants (shared/retention/sweep-run.ts). */
  RETENTION_SWEEP: 'RETENTION_SWEEP',
  /** A tenant's own OpenLineage endpoint, set by a platform admin, keyed by tenant id (shared/openlineage/endpoints.ts). */
  OPENLINEAGE_ENDPOINT: 'OPENLINEAGE_ENDPOINT',
  /**
   * Run events waiting for a worker to send them to a tenant's own endpoint, keyed by
   * `<tenant>#<job id>#<event type>` (shared/openlineage/outbox.ts): the FAIL and ABORT of the
   * status write that ended a job, which API routes cannot send there themselves.
   */
  OPENLINEAGE_OUTBOX: 'OPENLINEAGE_OUTBOX',
} as const;
export type PlatformCollection = keyof typeof PLATFORM_COLLECTIONS;

export interface ItemKey {
  readonly pk: string;
  readonly sk: string;
}

/** Lowercase letters, digits and inner hyphens: safe inside keys and client ids. */
export const TENANT_ID_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

const ID_WIDTH = 12;

function tenantPrefix(tenantId: string): string {
  if (!TENANT_ID_PATTERN.test(tenantId)) throw new Error(`invalid tenant id ${JSON.stringify(tenantId)}`);
  return `T#${tenantId}`;
}

/** Case and surrounding space do not make a name different. */
export function normaliseName(name: string): string {
  return name.trim().normalize('NFC').toLowerCase();
}

export const keys = {
  entityPartition: (tenantId: string, kind: TopLevelKind): string => `${tenantPrefix(tenantId)}#${kind}`,
  entity: (tenantId: string, kind: TopLevelKind, id: number): ItemKey => ({
    pk: keys.entityPartition(tenantId, kind),
    sk: String(id).padStart(ID_WIDTH, '0'),
  }),
  nameClaim: (tenantId: string, kind: TopLevelKind, name: string): ItemKey => ({
    pk: `${tenantPrefix(tenantId)}#${kind}#NAME`,
    sk: normaliseName(name),
  }),
  counter: (tenantId: string, kind: TopLevelKind): ItemKey => ({ pk: `${tenantPrefix(tenantId)}#COUNTER`, sk: kind }),
  idempotency: (tenantId: string, kind: IdempotentKind, key: string): ItemKey => ({
    pk: `${tenantPrefix(tenantId)}#${kind}#IDEMPOTENCY`,
    sk: key,
  }),
  /** The partition of a tenant's records of one kind (API clients, roles). */
  recordPartition: (tenantId: string, kind: RecordKind): string => `${tenantPrefix(tenantId)}#${kind}`,
  record: (tenantId: string, kind: RecordKind, id: string): ItemKey => ({
    pk: keys.recordPartition(tenantId, kind),
    sk: id,
  }),
  client: (tenantId: string, clientId: string): ItemKey => keys.record(tenantId, 'CLIENT', clientId),
  /** The item collection of an entity's children (a data table's versions), next to its head. */
  children: (tenantId: string, kind: TopLevelKind, id: number): string =>
    `${tenantPrefix(tenantId)}#${kind}#${String(id).padStart(ID_WIDTH, '0')}`,
  childrenHead: (tenantId: string, kind: TopLevelKind, id: number): ItemKey => ({
    pk: keys.children(tenantId, kind, id),
    sk: '#HEAD',
  }),
  VERSION_PREFIX: 'V#',
  version: (tenantId: string, kind: TopLevelKind, id: number, versionNumber: number): ItemKey => ({
    pk: keys.children(tenantId, kind, id),
    sk: `V#${String(versionNumber).padStart(ID_WIDTH, '0')}`,
  }),
  /** Where the uses of version `versionNumber` are listed: a Query with this sk prefix in the children. */
  versionUsePrefix: (versionNumber: number): string => `U#${String(versionNumber).padStart(ID_WIDTH, '0')}#`,
  /** One use of an entity's version; `user` names the user (a dataset node: dataset, graph version and node ids). */
  versionUse: (
    tenantId: string,
    kind: TopLevelKind,
    id: number,
    versionNumber: number,
    user: readonly number[],
  ): ItemKey => ({
    pk: keys.children(tenantId, kind, id),
    sk: `${keys.versionUsePrefix(versionNumber)}${user.map((part) => String(part).padStart(ID_WIDTH, '0')).join('#')}`,
  }),
  /** A graph version's run lock, beside the graph in its dataset's item collection. */
  graphRunLock: (tenantId: string, datasetId: number, graphVersion: number): ItemKey => ({
    pk: keys.children(tenantId, 'DATASET', datasetId),
    sk: `R#${String(graphVersion).padStart(ID_WIDTH, '0')}#LOCK`,
  }),
  /** Where the run items of a graph version's nodes are listed: a Query with this sk prefix. */
  nodeRunPrefix: (graphVersion: number): string => `R#${String(graphVersion).padStart(ID_WIDTH, '0')}#N#`,
  nodeRun: (tenantId: string, datasetId: number, graphVersion: number, nodeId: number): ItemKey => ({
    pk: keys.children(tenantId, 'DATASET', datasetId),
    sk: `${keys.nodeRunPrefix(graphVersion)}${String(nodeId).padStart(ID_WIDTH, '0')}`,
  }),
  /** Where the data-quality checks of a graph version's node `nodeId` are listed, oldest first (all its nodes' without one). */
  nodeCheckPrefix: (graphVersion: number, nodeId?: number): string =>
    `R#${String(graphVersion).padStart(ID_WIDTH, '0')}#Q#${nodeId === undefined ? '' : `${String(nodeId).padStart(ID_WIDTH, '0')}#`}`,
  /** One data-quality check of a node's output; `checkId` starts with its date, so checks sort by time. */
  nodeCheck: (tenantId: string, datasetId: number, graphVersion: number, nodeId: number, checkId: string): ItemKey => ({
    pk: keys.children(tenantId, 'DATASET', datasetId),
    sk: `${keys.nodeCheckPrefix(graphVersion, nodeId)}${checkId}`,
  }),
  /** Where a schedule's history entries are listed, oldest first: a Query with this sk prefix. */
  SCHEDULE_RUN_PREFIX: 'H#',
  /** A history entry of a schedule; `runId` starts with its date, so entries sort by time. */
  scheduleRun: (tenantId: string, scheduleId: number, runId: string): ItemKey => ({
    pk: keys.children(tenantId, 'SCHEDULE', scheduleId),
    sk: `H#${runId}`,
  }),
  /** The mark that a schedule handled version `versionNumber` of data table `tableId`. */
  scheduleVersionMark: (tenantId: string, scheduleId: number, tableId: number, versionNumber: number): ItemKey => ({
    pk: keys.children(tenantId, 'SCHEDULE', scheduleId),
    sk: `N#${String(tableId).padStart(ID_WIDTH, '0')}#${String(versionNumber).padStart(ID_WIDTH, '0')}`,
  }),
  /** The count of a tenant's quota contracts: a create commits only while it is as read (no overlap, shared/quota/store.ts). */
  quotaContractsHead: (tenantId: string): ItemKey => ({
    pk: `${tenantPrefix(tenantId)}#QUOTA_CONTRACT#HEAD`,
    sk: '#HEAD',
  }),
  /** The partition of a tenant's usage counters (keys.usage). */
  usagePartition: (tenantId: string): string => `${tenantPrefix(tenantId)}#USAGE`,
  /** Where one metric's counters are listed, one per period: a Query with this sk prefix in the usage partition. */
  usageMetricPrefix: (metric: string): string => `${metric}#`,
  usage: (tenantId: string, metric: string, period: string): ItemKey => ({
    pk: keys.usagePartition(tenantId),
    sk: `${keys.usageMetricPrefix(metric)}${period}`,
  }),
  platformPartition: (collection: PlatformCollection): string => `P#${PLATFORM_COLLECTIONS[collection]}`,
  platformRecord: (collection: PlatformCollection, id: string): ItemKey => ({
    pk: keys.platformPartition(collection),
    sk: id,
  }),
  /** The messages of a conversation (a record keyed by its UUID), one partition per conversation. */
  conversationMessages: (tenantId: string, conversationId: string): string =>
    `${tenantPrefix(tenantId)}#CONVERSATION#${conversationId}`,
  CONVERSATION_MESSAGE_PREFIX: 'M#',
  conversationMessage: (tenantId: string, conversationId: string, messageNumber: number): ItemKey => ({
    pk: keys.conversationMessages(tenantId, conversationId),
    sk: `M#${String(messageNumber).padStart(ID_WIDTH, '0')}`,
  }),
  job: (tenantId: string, kind: JobKind, jobId: string): ItemKey => ({
    pk: keys.jobs(tenantId, kind),
    sk: jobId,
  }),
  /** The partition of a kind's job resources: each job's item and, beside it, its sealed credentials (isJobSecret). */
  jobs: (tenantId: string, kind: JobKind): string => `${tenantPrefix(tenantId)}#${kind}`,
  /** Whether a sort key of keys.jobs is a job's sealed credentials rather than its item. */
  isJobSecret: (sk: string): boolean => sk.endsWith('#SECRET'),
  /** A job's sealed credentials, apart from its status so that no read of the status carries them. */
  jobSecret: (tenantId: string, kind: JobKind, jobId: string): ItemKey => ({
    pk: keys.jobs(tenantId, kind),
    sk: `${jobId}#SECRET`,
  }),
};

import * as z from 'zod';
import type { Principal } from '../auth/principal';
import type { Permission } from '../auth/permissions';
import { versionPreview } from '../data-tables/preview';
import { dataTableStore } from '../data-tables/store';
import { requestedNodeRun, startNodeRun } from '../datasets/node-run-start';
import { validationError } from '../errors/app-error';
import { startTargetExport } from '../exports/target-export-start';
import { requestedLaunch } from '../jobs/launch';
import { describeIssues } from '../http/validation';
import type { AppManifest, RunActionDeclaration, RunActionKind } from '../model/app-bundle';
import { EntityId } from '../model/common';
import { CreateExportRequest } from '../model/export';
import { ExecuteRecipeRequest } from '../model/recipe-run';
import { callBackend, type BackendCallContext } from './backend';

/**
 * What each kind of run action does (docs/apps.md, "Runs"), always as the app: with the
 * principal of its SDK token, the roles its manifest asked for, in its tenant. The service
 * actions go through the same domain modules as the routes that do the same thing.
 */

type Json = z.infer<ReturnType<typeof z.json>>;

/** A domain module's answer as plain JSON, as the run keeps it (no undefined fields). */
const asJson = (value: unknown): Json => JSON.parse(JSON.stringify(value)) as Json;

/** One run of a declared action, as the service carries it out. */
export interface ActionCall {
  /** The app: the principal of the SDK token, tenant-bound. */
  readonly app: Principal;
  readonly declared: RunActionDeclaration;
  readonly manifest: AppManifest;
  /** The run and session it belongs to (what a backend is told). */
  readonly context: BackendCallContext;
}

interface ActionKind {
  /** What the app's roles must grant for this kind (80-8030 otherwise); null when it touches no tenant data. */
  readonly permission: Permission | null;
  /** Checks the input (10-1400 naming each wrong field as `input.<field>`) and answers the action, ready to carry out. */
  prepare(call: ActionCall, input: Readonly<Record<string, unknown>>): () => Promise<Json>;
}

function actionKind<Input extends z.ZodType>(
  permission: Permission | null,
  inputSchema: Input,
  carryOut: (call: ActionCall, input: z.infer<Input>) => Promise<Json>,
): ActionKind {
  return {
    permission,
    prepare(call, input) {
      const parsed = inputSchema.safeParse(input);
      if (!parsed.success) throw validationError(describeIssues(parsed.error.issues, 'input'));
      return () => carryOut(call, parsed.data);
    },
  };
}

/** Rows of a preview a run keeps: a run is one DynamoDB item, a preview up to 100 rows. */
const PreviewRowLimit = z.int().min(1).max(100).default(20);

export const ACTION_KINDS: Readonly<Record<RunActionKind, ActionKind>> = {
  list_data_tables: actionKind('data:read', z.strictObject({}), async ({ app }) => {
    const tables = await dataTableStore.list(app.tenantId);
    return { tables: tables.map((table) => ({ id: table.id, name: table.data.name })) };
  }),
  preview_data_table: actionKind(
    'data:read',
    z.strictObject({ data_table_id: EntityId, version_number: EntityId, row_limit: PreviewRowLimit }),
    async ({ app }, input) => {
      const preview = await versionPreview(app.tenantId, input.data_table_id, input.version_number);
      return {
        data_table_id: input.data_table_id,
        version_number: input.version_number,
        row_count: preview.row_count,
        columns: asJson(preview.columns),
        rows: asJson(preview.rows.slice(0, input.row_limit)),
      };
    },
  ),
  run_dataset_node: actionKind(
    'data:write',
    z.strictObject({
      dataset_id: EntityId,
      version_number: EntityId,
      node_id: EntityId,
      ...ExecuteRecipeRequest.shape,
    }),
    async ({ app }, { dataset_id, version_number, node_id, ...body }) => {
      const node = { dataset_id, version_number, node_id };
      const status = await startNodeRun(app, node, requestedNodeRun(app, body), requestedLaunch(app, body.launch));
      return asJson(status);
    },
  ),
  start_export: actionKind('data:write', CreateExportRequest, async ({ app }, input) => {
    const { exportId } = await startTargetExport(app, input, undefined);
    return { export_id: exportId };
  }),
  call_backend: actionKind(null, z.record(z.string(), z.json()), async ({ declared, manifest, context }, input) => {
    // AppManifest refuses call_backend actions without a backend; this only narrows the types.
    if (declared.kind !== 'call_backend' || manifest.backend === undefined)
      throw new Error(`action ${declared.name} has no backend to call`);
    return callBackend(manifest.backend.base_url, declared.path, input, context);
  }),
};

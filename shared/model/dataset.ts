import * as z from 'zod';
import { RecipeVersionResponse } from './recipe';
import { runStatusFields } from './recipe-run';
import {
  AuditFields,
  Description,
  EchoedAuditFields,
  EntityId,
  IdParameter,
  LockVersion,
  Name,
  Tags,
  integerText,
  listEnvelope,
} from './common';

/** Datasets and their versioned transformation graphs (spec 2.8). */

export const DatasetIdParams = z.strictObject({ dataset_id: IdParameter });
const versionNumberText = integerText('must be a positive integer', 1).describe(
  'Version number of the transformation graph',
);
export const GraphVersionParams = z.strictObject({ dataset_id: IdParameter, version_number: versionNumberText });
export const NodeParams = z.strictObject({
  dataset_id: IdParameter,
  version_number: versionNumberText,
  node_id: IdParameter,
});

export const DatasetCreateRequest = z
  .strictObject({ name: Name, description: Description, tags: Tags })
  .meta({ id: 'DatasetCreateRequest' });

export const DatasetUpdateRequest = z
  .strictObject({
    id: EntityId,
    lock_version: LockVersion,
    name: Name.optional().describe('Unchanged when omitted'),
    description: Description,
    tags: Tags,
    latest_transformation_graph: z.unknown().optional().describe('Read-only; accepted and ignored'),
    ...EchoedAuditFields,
  })
  .meta({
    id: 'DatasetUpdateRequest',
    description: 'Full update: description and tags omitted are cleared; name omitted stays',
  });

export const DatasetMergePatch = z
  .strictObject({
    id: EntityId,
    lock_version: LockVersion,
    name: Name.optional(),
    description: Description,
    tags: Tags,
  })
  .meta({
    id: 'DatasetMergePatch',
    description: 'RFC 7396 merge patch: fields omitted stay, null clears description or tags',
  });

/** The lean graph: a version without its nodes (spec 2.8). */
export const LeanGraph = z
  .object({
    dataset_id: z.int(),
    version_number: z.int(),
    version_display_name: z.string().describe('Opaque display name such as V3; never parse or sort it'),
    release_status: z.boolean().describe('false: draft; true: released'),
    lock_version: z.int().describe('Moves with every change of the graph'),
    expiration_date: z.iso.datetime().nullable().describe('Null: the retention feature is off'),
    ...AuditFields,
  })
  .meta({ id: 'LeanTransformationGraph' });

const nodeFields = {
  id: z.int().describe('Node id, unique in its graph version; a clone keeps the ids'),
  lock_version: z.int(),
  dataset_id: z.int(),
  ...AuditFields,
};

export const TableNode = z
  .object({
    ...nodeFields,
    node_type: z.literal('TABLE'),
    data_table_id: z.int(),
    data_table_version_number: z
      .int()
      .nullable()
      .describe('Null: the latest COMPLETED version of the table when the graph runs'),
  })
  .meta({ id: 'TableNode' });

export const Binding = z
  .object({ source_node_id: z.int(), alias: z.string() })
  .meta({ id: 'SourceNodeDefinition', description: 'A source node bound to an alias of the recipe version' });

/** Read-only run fields a client may send back unchanged in an update; they are ignored. */
const echoedRunFields = {
  start_time: z.unknown().optional(),
  end_time: z.unknown().optional(),
  use_sample: z.unknown().optional(),
  schema_analysis_depth: z.unknown().optional(),
  last_run: z.unknown().optional(),
  run_by: z.unknown().optional(),
  metadata: z.unknown().optional(),
  execution: z.unknown().optional(),
  run_state: z.unknown().optional(),
};

export const RecipeNode = z
  .object({
    ...nodeFields,
    node_type: z.literal('RECIPE'),
    recipe_id: z.int(),
    recipe_version: RecipeVersionResponse.nullable().describe('Null only if the version is no longer there'),
    source_node_definitions: z.array(Binding).describe('One source per alias of the recipe version'),
    ...runStatusFields,
  })
  .meta({ id: 'RecipeNode' });

export const DatasetNode = z.discriminatedUnion('node_type', [TableNode, RecipeNode]).meta({ id: 'DatasetNode' });

export const BindingCandidates = z
  .object({
    node_id: z.int(),
    candidates: z
      .array(z.object({ alias: z.string(), source_node_ids: z.array(z.int()) }))
      .describe('For each alias, the nodes that may be bound to it'),
  })
  .meta({ id: 'BindingCandidates' });

export const Edge = z
  .object({
    source_node_id: z.int(),
    target_node_id: z.int(),
    alias: z.string().nullable().describe('The recipe alias the source is bound to'),
  })
  .meta({ id: 'Edge' });

export const FullGraph = z
  .object({
    ...LeanGraph.omit({ expiration_date: true }).shape,
    nodes: z.array(DatasetNode),
    edges: z.array(Edge),
    output_dataset_recipe_node_id: z
      .int()
      .nullable()
      .describe('The final recipe node: the only recipe node nothing reads from, if there is exactly one'),
  })
  .meta({ id: 'TransformationGraph' });

export const GraphWrapper = z
  .object({ latest_transformation_graph: FullGraph })
  .meta({ id: 'TransformationGraphWrapper' });
export const NodesResponse = z.object({ nodes: z.array(DatasetNode) }).meta({ id: 'NodesResponse' });
export const EdgesResponse = z.object({ edges: z.array(Edge) }).meta({ id: 'EdgesResponse' });

export const DatasetResponse = z
  .object({
    id: z.int(),
    lock_version: z.int(),
    name: z.string().nullable(),
    description: z.string().nullable(),
    tags: z.array(z.string()).nullable(),
    ...AuditFields,
    latest_transformation_graph: LeanGraph.nullable().describe('Null only while the dataset is being deleted'),
  })
  .meta({ id: 'DatasetResponse' });

export const DatasetList = listEnvelope(DatasetResponse, 'DatasetList');
export const GraphVersionList = listEnvelope(LeanGraph, 'TransformationGraphList');

export const CreateGraphVersionRequest = z
  .strictObject({
    dataset_id: EntityId,
    source_transformation_graph_version_number: z
      .int()
      .min(1)
      .nullable()
      .optional()
      .describe('An existing version to copy nodes, edges and bindings from; empty when omitted'),
  })
  .meta({ id: 'CreateDatasetVersionRequest' });

const SourceNodeDefinitions = z
  .array(z.strictObject({ source_node_id: EntityId, alias: z.string().min(1).max(255) }))
  .max(50)
  .describe('RECIPE: one source node per alias of the recipe version, as {source_node_id, alias}');
const RecipeVersionNumber = z.int().min(1).optional().describe('RECIPE: required');

const DataTableVersionNumber = z
  .int()
  .min(1)
  .nullable()
  .optional()
  .describe('Pinned version; null or omitted: the latest COMPLETED version when the graph runs');

/**
 * Adding a node. node_type is any string so that an unsupported one is 20-1012 rather than a
 * schema error; what each type requires is checked by the handler (data_table_id for TABLE).
 */
export const AddNodeRequest = z
  .strictObject({
    node_type: z.string().max(64).describe('TABLE or RECIPE'),
    dataset_id: EntityId,
    data_table_id: EntityId.optional().describe('TABLE: required'),
    data_table_version_number: DataTableVersionNumber,
    recipe_id: EntityId.optional().describe('RECIPE: required (20-1047)'),
    recipe_version_number: RecipeVersionNumber,
    source_node_definitions: SourceNodeDefinitions.optional(),
  })
  .meta({ id: 'AddDatasetNodeRequest' });

export const UpdateNodeRequest = z
  .strictObject({
    id: EntityId.describe('Must be the node_id of the path (10-1400)'),
    lock_version: LockVersion,
    node_type: z.string().max(64),
    dataset_id: EntityId,
    data_table_id: EntityId.optional().describe('TABLE: unchanged when omitted'),
    data_table_version_number: DataTableVersionNumber,
    recipe_id: EntityId.optional().describe('RECIPE: only to switch to another recipe'),
    recipe_version_number: RecipeVersionNumber,
    source_node_definitions: SourceNodeDefinitions.optional().describe('RECIPE: required'),
    recipe_version: z.unknown().optional(),
    ...echoedRunFields,
    ...EchoedAuditFields,
  })
  .meta({
    id: 'UpdateDatasetNodeRequest',
    description:
      'RECIPE: recipe_version_number and source_node_definitions, checked like an addition. TABLE: fields omitted stay (a pinned version is dropped when the table changes); data_table_version_number null means the latest COMPLETED version',
  });

export type DatasetResponse = z.input<typeof DatasetResponse>;
export type LeanGraph = z.input<typeof LeanGraph>;
export type FullGraph = z.input<typeof FullGraph>;
export type DatasetNode = z.input<typeof DatasetNode>;
export type Binding = z.input<typeof Binding>;
export type Edge = z.input<typeof Edge>;

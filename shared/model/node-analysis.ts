import * as z from 'zod';
import { SchemaAnalysisDepth } from './columns';
import { SchemaAnalysisStatus } from './data-table';

/** The schema analysis of a recipe node's output (docs/recipe-runs.md). */
export const NodeSchemaAnalysisStatus = SchemaAnalysisStatus.extend({
  depth: SchemaAnalysisDepth.optional().describe(
    'Depth the node’s current output is analysed to (by its run or a later analysis); absent while it has none',
  ),
  requested_depth: SchemaAnalysisDepth.describe('Depth the job in execution was asked for'),
  run_id: z
    .string()
    .nullable()
    .describe('The recipe run that wrote the node’s current output, the one depth describes; null while there is none'),
  use_sample: z
    .boolean()
    .describe('Which output: the sample run’s or the full run’s (the kind of the node’s latest run)'),
})
  .describe(
    'execution is the latest job that analyses the node’s output: the last analysis asked for, or the node’s last run when it was asked for later',
  )
  .meta({ id: 'NodeSchemaAnalysisStatus' });

export const NodeAnalysisStatusQuery = z.strictObject({
  job_id: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .describe('Answer the status of this job (an analysis of the node or its last run; 20-1015 otherwise)'),
});

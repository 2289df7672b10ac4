import { AppError } from '../errors/app-error';
import { isFeatureOn } from '../features/store';
import type { QualityReport } from '../model/quality-rule';

/**
 * What a FAILED data-quality report stops (docs/data-quality.md): a data version whose import,
 * or a recipe node's output whose run, found an `error` rule broken is not released (through
 * a dataset that reads it), exported or transferred until a user accepts the failure; a
 * later version or run that passes is judged on its own. Light on purpose: the export,
 * transfer and release routes import it, and no engine.
 */

/** The version as the gate reads it. */
export interface CheckedVersion {
  readonly data_table_id: number;
  readonly version_number: number;
  readonly quality?: QualityReport;
}

/** A recipe node's output as the gate reads it: where it is, and its report. */
export interface CheckedOutput {
  readonly dataset_id: number;
  readonly version_number: number;
  readonly node_id: number;
  readonly use_sample: boolean;
  readonly output: { readonly run_id: string; readonly quality?: QualityReport };
}

/** The first error rule the report failed, unless its failure was accepted. */
export function blockingRule(
  checked: { readonly quality?: QualityReport } | undefined,
): QualityReport['results'][number] | undefined {
  const quality = checked?.quality;
  if (!quality || quality.status !== 'FAILED' || quality.accepted) return undefined;
  return quality.results.find((result) => !result.passed && result.severity === 'error');
}

/** 409 90-1002 naming the rule when the version failed one (and the feature is on); nothing otherwise. */
export async function refuseIfQualityFailed(tenantId: string, version: CheckedVersion): Promise<void> {
  const rule = blockingRule(version);
  if (!rule || !(await isFeatureOn(tenantId, 'data_quality'))) return;
  const { data_table_id: tableId, version_number: versionNumber } = version;
  throw refusal(`data version ${versionNumber} of data table ${tableId}`, rule, {
    data_table_id: tableId,
    version_number: versionNumber,
  });
}

/** 409 90-1002 naming the rule when the node's output failed one (and the feature is on); nothing otherwise. */
export async function refuseIfOutputQualityFailed(tenantId: string, checked: CheckedOutput): Promise<void> {
  const rule = blockingRule(checked.output);
  if (!rule || !(await isFeatureOn(tenantId, 'data_quality'))) return;
  const { dataset_id: datasetId, version_number: versionNumber, node_id: nodeId, use_sample: useSample } = checked;
  const which = useSample ? 'sample' : 'full';
  throw refusal(`the ${which} output of node ${nodeId} of dataset ${datasetId} version ${versionNumber}`, rule, {
    dataset_id: datasetId,
    version_number: versionNumber,
    node_id: nodeId,
    use_sample: useSample,
    run_id: checked.output.run_id,
  });
}

function refusal(
  what: string,
  rule: QualityReport['results'][number],
  where: Readonly<Record<string, string | number | boolean>>,
): AppError {
  return new AppError('90-1002', {
    params: [what, rule.rule_name],
    extraDetails: {
      ...where,
      rule_id: rule.rule_id,
      rule_name: rule.rule_name,
      failing_row_count: rule.failing_row_count,
    },
  });
}

import { AppError } from '../errors/app-error';
import { isFeatureOn } from '../features/store';
import type { QualityReport } from '../model/quality-rule';

/**
 * What a FAILED data-quality report stops (docs/data-quality.md): a version whose import
 * found an `error` rule broken is not released (through a dataset that reads it), exported or
 * transferred until a user accepts the failure; a later version that passes is judged on its
 * own. Light on purpose: the export, transfer and release routes import it, and no engine.
 */

/** The version as the gate reads it. */
export interface CheckedVersion {
  readonly data_table_id: number;
  readonly version_number: number;
  readonly quality?: QualityReport;
}

/** The first error rule the version failed, unless its failure was accepted. */
export function blockingRule(version: CheckedVersion): QualityReport['results'][number] | undefined {
  const { quality } = version;
  if (!quality || quality.status !== 'FAILED' || quality.accepted) return undefined;
  return quality.results.find((result) => !result.passed && result.severity === 'error');
}

/** 409 90-1002 naming the rule when the version failed one (and the feature is on); nothing otherwise. */
export async function refuseIfQualityFailed(tenantId: string, version: CheckedVersion): Promise<void> {
  const rule = blockingRule(version);
  if (!rule || !(await isFeatureOn(tenantId, 'data_quality'))) return;
  throw new AppError('90-1002', {
    params: [version.data_table_id, version.version_number, rule.rule_name],
    extraDetails: {
      data_table_id: version.data_table_id,
      version_number: version.version_number,
      rule_id: rule.rule_id,
      rule_name: rule.rule_name,
      failing_row_count: rule.failing_row_count,
    },
  });
}

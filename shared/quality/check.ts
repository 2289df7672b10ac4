import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { EngineProcessStopped, runInEngineProcess } from '../engine/isolation/engine-process';
import { functionMemoryMb } from '../engine/limits';
import { AppError } from '../errors/app-error';
import { isFeatureOn } from '../features/store';
import type { QualityReport, QualityRuleOutcome, QualityRuleResult } from '../model/quality-rule';
import { recordUsage } from '../usage';
import { rulesOfTable, type QualityRuleEntity } from './store';

/**
 * The data-quality check of an import (docs/data-quality.md): the rules of the table, checked
 * over the version's data.parquet as the import wrote it, in an engine process bounded like a
 * recipe run's (the rules hold the tenant's own SQL). The report goes on the version with
 * COMPLETED. The engine process's CPU is counted in the tenant's usage here; the worker
 * counts its own.
 */

/** What the engine process may use: the import worker's memory less what the worker keeps, and a time bound. */
const WORKER_PROCESS_RESERVE_MB = 512;
/** Rules are scans of one file: far less than an import's 15 minutes, which the import itself needs first. */
const CHECK_TIMEOUT_MS = 5 * 60_000;

export interface QualityCheckStep {
  readonly tenantId: string;
  readonly dataTableId: number;
  readonly dataPath: string;
  readonly workDir: string;
  readonly signal: AbortSignal;
  /** The import worker's memory as declared (the twin's and the bench's figure, where Lambda does not say). */
  readonly memoryMb: number;
}

/** The report of the table's rules over the version, or undefined when the feature is off or the table has none. */
export async function checkVersionQuality(step: QualityCheckStep): Promise<QualityReport | undefined> {
  if (!(await isFeatureOn(step.tenantId, 'data_quality'))) return undefined;
  const rules = await rulesOfTable(step.tenantId, step.dataTableId);
  if (rules.length === 0) return undefined;
  const started = performance.now();
  const memoryMb = functionMemoryMb(step.memoryMb) - WORKER_PROCESS_RESERVE_MB;
  const input = {
    dataPath: step.dataPath,
    rules: rules.map((rule) => ({ id: rule.id, rule: rule.data.rule })),
    now: new Date().toISOString(),
    memoryMb,
    spillDirectory: join(step.workDir, 'quality-spill'),
  };
  try {
    const { result, cpuSeconds } = await runInEngineProcess('quality-check', input, {
      memoryMb,
      timeoutMs: CHECK_TIMEOUT_MS,
      signal: step.signal,
    });
    await recordUsage(step.tenantId, 'CPU_SECONDS', cpuSeconds);
    return reportOf(rules, result, input.now, performance.now() - started);
  } catch (error) {
    if (!(error instanceof EngineProcessStopped)) throw error;
    const bound = error.reason === 'time' ? `${CHECK_TIMEOUT_MS / 1000} s` : `${memoryMb} MB`;
    throw new AppError(error.reason === 'time' ? '10-1047' : '10-500', {
      message: `The data-quality rules stopped: they needed more than the ${bound} a check has`,
      extraDetails: { cause: `data-quality check: ${error.reason} limit` },
    });
  }
}

/** The outcomes with their rules' names and severities, and the verdict: FAILED when an error rule failed. */
export function reportOf(
  rules: readonly QualityRuleEntity[],
  outcomes: readonly QualityRuleOutcome[],
  checkedDate: string,
  durationMs: number,
): QualityReport {
  const byId = new Map(rules.map((rule) => [rule.id, rule]));
  const results: QualityRuleResult[] = outcomes.map((outcome) => {
    const rule = byId.get(outcome.rule_id)!;
    return { ...outcome, rule_name: rule.data.name, kind: rule.data.rule.kind, severity: rule.data.severity };
  });
  const failed = results.filter((result) => !result.passed);
  const status = failed.some((result) => result.severity === 'error')
    ? 'FAILED'
    : failed.length > 0
      ? 'WARNED'
      : 'PASSED';
  return {
    status,
    checked_date: checkedDate,
    duration_ms: Math.round(durationMs),
    results,
    accepted: null,
  };
}

import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { EngineProcessStopped, runInEngineProcess } from '../engine/isolation/engine-process';
import { functionMemoryMb } from '../engine/limits';
import { AppError } from '../errors/app-error';
import { isFeatureOn } from '../features/store';
import type { QualityReport, QualityRuleOutcome, QualityRuleResult } from '../model/quality-rule';
import { recordUsage } from '../usage';
import { rulesOfNode, rulesOfTable, type QualityRuleEntity } from './store';

/**
 * The data-quality checks (docs/data-quality.md): the rules of a table over the data.parquet
 * an import just wrote, and the rules of a recipe node over the output its run just wrote,
 * each in an engine process bounded as the job's engine is (the rules hold the tenant's own
 * SQL). The report goes on the version with COMPLETED, or on the node's output with it.
 */

/** What the import's engine process may use: the import worker's memory less what the worker keeps. */
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

/** A check of some rules over one local Parquet file, in an engine process with these bounds. */
interface RulesCheck {
  readonly rules: readonly QualityRuleEntity[];
  readonly dataPath: string;
  readonly workDir: string;
  readonly signal: AbortSignal;
  readonly limits: { readonly memoryMb: number; readonly timeoutMs: number };
}

/** The report of the table's rules over the version, or undefined when the feature is off or the table has none. */
export async function checkVersionQuality(step: QualityCheckStep): Promise<QualityReport | undefined> {
  if (!(await isFeatureOn(step.tenantId, 'data_quality'))) return undefined;
  const rules = await rulesOfTable(step.tenantId, step.dataTableId);
  if (rules.length === 0) return undefined;
  const memoryMb = functionMemoryMb(step.memoryMb) - WORKER_PROCESS_RESERVE_MB;
  const { report, cpuSeconds } = await checkRules({
    ...step,
    rules,
    limits: { memoryMb, timeoutMs: CHECK_TIMEOUT_MS },
  });
  await recordUsage(step.tenantId, 'CPU_SECONDS', cpuSeconds);
  return report;
}

/** What a recipe node's run checks its output with. */
export interface NodeQualityStep {
  readonly tenantId: string;
  readonly datasetId: number;
  readonly nodeId: number;
  /** The output's data.parquet as the engine wrote it, on local disk. */
  readonly dataPath: string;
  readonly workDir: string;
  readonly signal: AbortSignal;
  /** The run's engine bounds (recipeRunLimits): the check has the same memory and at most CHECK_TIMEOUT_MS. */
  readonly limits: { readonly memoryMb: number; readonly timeoutMs: number };
}

/**
 * The report of the node's rules over the output its run wrote, and the CPU of the check's
 * engine process (the run counts it with its own), or undefined when the feature is off or
 * the node has no rule.
 */
export async function checkNodeQuality(
  step: NodeQualityStep,
): Promise<{ readonly report: QualityReport; readonly cpuSeconds: number } | undefined> {
  if (!(await isFeatureOn(step.tenantId, 'data_quality'))) return undefined;
  const rules = await rulesOfNode(step.tenantId, step.datasetId, step.nodeId);
  if (rules.length === 0) return undefined;
  const limits = { memoryMb: step.limits.memoryMb, timeoutMs: Math.min(step.limits.timeoutMs, CHECK_TIMEOUT_MS) };
  return checkRules({ ...step, rules, limits });
}

/** The rules checked in one engine process; 10-1047 or 10-500 when it is stopped at its time or memory. */
async function checkRules(check: RulesCheck): Promise<{ readonly report: QualityReport; readonly cpuSeconds: number }> {
  const started = performance.now();
  const { memoryMb, timeoutMs } = check.limits;
  const input = {
    dataPath: check.dataPath,
    rules: check.rules.map((rule) => ({ id: rule.id, rule: rule.data.rule })),
    now: new Date().toISOString(),
    memoryMb,
    spillDirectory: join(check.workDir, 'quality-spill'),
  };
  try {
    const { result, cpuSeconds } = await runInEngineProcess('quality-check', input, {
      memoryMb,
      timeoutMs,
      signal: check.signal,
    });
    return { report: reportOf(check.rules, result, input.now, performance.now() - started), cpuSeconds };
  } catch (error) {
    if (!(error instanceof EngineProcessStopped)) throw error;
    const bound = error.reason === 'time' ? `${timeoutMs / 1000} s` : `${memoryMb} MB`;
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

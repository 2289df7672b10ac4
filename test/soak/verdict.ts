/**
 * The soak's rules, and its report as text. Nothing may grow without bound: after the warm-up
 * minute, each measure's last sample (taken once the traffic has drained) may exceed the
 * reference sample (the first one of the run's second half) by at most its tolerance; the
 * twin's temporary folder holds no more entries than at the start; no answer is a 5xx, no
 * request goes unanswered, and the twin is still running at the end.
 */
import type { Sample } from './probe';
import type { Tally } from './tally';

/** The first minute is the warm-up: caches fill, modules load, the first engines start. */
export const WARM_UP_SECONDS = 60;

/**
 * Kinds no API call deletes: a record of every export (spec 2.9, with its name claim) and of
 * every direct or multi-part export job. They grow with the exports made, by design; the report
 * shows by how much.
 */
const HISTORY_KINDS = new Set(['EXPORT', 'DIRECT_EXPORT', 'MULTI_PART_EXPORT']);
/** Whether an item kind of probe.ts (`EXPORT`, `EXPORT name`, `DATASET children`) is export history. */
const isHistory = (kind: string): boolean => HISTORY_KINDS.has(kind.split(' ')[0]!);

interface Measure {
  readonly name: string;
  readonly unit: string;
  readonly value: (sample: Sample) => number;
  /** Growth allowed from the reference to the last sample: a share of the reference plus an absolute slack. */
  readonly share: number;
  readonly slack: number;
}

/** Items of the ordinary traffic's tenant, its export history left out. */
export function steadyItems(sample: Sample, tenant: string): number {
  return Object.entries(sample.itemsByTenant[tenant] ?? {})
    .filter(([kind]) => !isHistory(kind))
    .reduce((sum, [, count]) => sum + count, 0);
}

export function historyItems(sample: Sample, tenant: string): number {
  return Object.entries(sample.itemsByTenant[tenant] ?? {})
    .filter(([kind]) => isHistory(kind))
    .reduce((sum, [, count]) => sum + count, 0);
}

function measures(tenant: string): Measure[] {
  return [
    {
      name: 'twin RSS (engine processes included)',
      unit: 'MB',
      value: (sample) => sample.rssMb,
      share: 0.1,
      slack: 16,
    },
    { name: 'engine processes', unit: '', value: (sample) => sample.children, share: 0, slack: 1 },
    { name: 'open file descriptors', unit: '', value: (sample) => sample.fds, share: 0.1, slack: 8 },
    {
      name: `items of tenant ${tenant} (export history aside)`,
      unit: '',
      value: (sample) => steadyItems(sample, tenant),
      share: 0.1,
      slack: 10,
    },
    { name: 'local S3 store', unit: 'MB', value: (sample) => sample.storeMb, share: 0.1, slack: 4 },
  ];
}

export interface TwinEnd {
  /** Why the twin is no longer running, when it is not. */
  readonly stopped?: string;
}

export interface Verdict {
  readonly passed: boolean;
  readonly lines: readonly string[];
}

/** The reference sample: the first at or after both the warm-up and half the run. */
function referenceOf(samples: readonly Sample[], runSeconds: number): Sample | undefined {
  const from = Math.max(WARM_UP_SECONDS, runSeconds / 2);
  return samples.find((sample) => sample.atSeconds >= from && sample !== samples.at(-1));
}

export function judgeSoak(
  samples: readonly Sample[],
  tally: Tally,
  end: TwinEnd,
  options: { readonly runSeconds: number; readonly tenant: string },
): Verdict {
  const lines: string[] = [];
  let passed = true;
  const fail = (line: string) => {
    passed = false;
    lines.push(`FAIL  ${line}`);
  };
  const pass = (line: string) => lines.push(`ok    ${line}`);

  if (end.stopped !== undefined) fail(`THE TWIN STOPPED: ${end.stopped}`);
  else pass('the twin is still running');
  if (tally.serverErrors > 0) fail(`${tally.serverErrors} answers were 5xx`);
  else pass('no 5xx');
  if (tally.noAnswer > 0) fail(`${tally.noAnswer} requests got no answer`);
  else pass('every request was answered');

  const first = samples[0];
  const last = samples.at(-1);
  const reference = referenceOf(samples, options.runSeconds);
  if (first === undefined || last === undefined || reference === undefined) {
    if (end.stopped === undefined) fail(`too few samples to judge growth (${samples.length}); run at least 2 minutes`);
    else lines.push(`note  growth not judged: ${samples.length} samples before the twin stopped`);
    return { passed, lines };
  }
  for (const measure of measures(options.tenant)) {
    const from = measure.value(reference);
    const to = measure.value(last);
    const limit = from * (1 + measure.share) + measure.slack;
    const text = `${measure.name}: ${from.toFixed(0)} → ${to.toFixed(0)} ${measure.unit} from ${reference.label} to ${last.label} (limit ${limit.toFixed(0)}: +${measure.share * 100} % +${measure.slack})`;
    if (to > limit) fail(text);
    else pass(text);
  }
  const scratch = `scratch folders in the twin's temp folder: ${first.scratchFolders} at the start, ${last.scratchFolders} (${last.scratchMb.toFixed(1)} MB) at the end`;
  if (last.scratchFolders > first.scratchFolders) fail(scratch);
  else pass(scratch);
  const history = historyItems(last, options.tenant) - historyItems(first, options.tenant);
  lines.push(
    `note  export history of tenant ${options.tenant}: +${history} items (records of exports and their jobs; no API deletes them)`,
  );
  return { passed, lines };
}

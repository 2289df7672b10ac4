/**
 * The soak's record of every answer: counts per status (and catalogue code), latencies per
 * kind of request, and one example of each kind of failure worth reading (a 5xx, a request
 * that got no answer, a normal request refused, an answer that broke a rule).
 */
export interface Outcome {
  /** The operation (`createConnection`) or the hostile kind (`hostile fuzz deep-json`). */
  readonly kind: string;
  readonly hostile: boolean;
  /** 0 when no answer came (connection refused or reset, time-out). */
  readonly status: number;
  readonly code: string | undefined;
  readonly ms: number;
  /** What the request was and what went wrong, for the examples. */
  readonly detail: string;
  /** A fuzz rule the answer broke (test/fuzz/check.ts). */
  readonly violation?: string;
}

export interface LatencyRow {
  readonly kind: string;
  readonly count: number;
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
}

/** Examples kept per kind of failure: enough to act on, never the whole run. */
const EXAMPLES_PER_LIST = 12;

function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;
}

export class Tally {
  readonly byStatus = new Map<string, number>();
  private readonly latencies = new Map<string, number[]>();
  /** Failures by list and by kind + status, one example each. */
  readonly examples = {
    serverErrors: new Map<string, string>(),
    noAnswer: new Map<string, string>(),
    refusedNormal: new Map<string, string>(),
    ruleViolations: new Map<string, string>(),
  };
  requests = 0;
  hostileRequests = 0;
  serverErrors = 0;
  noAnswer = 0;
  refusedNormal = 0;
  ruleViolations = 0;

  record(outcome: Outcome): void {
    this.requests += 1;
    if (outcome.hostile) this.hostileRequests += 1;
    const status = outcome.status === 0 ? '0 (no answer)' : `${outcome.status} ${outcome.code ?? ''}`.trim();
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
    const times = this.latencies.get(outcome.kind) ?? [];
    times.push(outcome.ms);
    this.latencies.set(outcome.kind, times);
    const key = `${outcome.kind} ${status}`;
    const example = `${key}: ${outcome.detail}`;
    if (outcome.status >= 500) {
      this.serverErrors += 1;
      this.keep(this.examples.serverErrors, key, example);
    } else if (outcome.status === 0) {
      this.noAnswer += 1;
      this.keep(this.examples.noAnswer, key, example);
    } else if (outcome.status >= 400 && !outcome.hostile) {
      this.refusedNormal += 1;
      this.keep(this.examples.refusedNormal, key, example);
    }
    if (outcome.violation !== undefined) this.violation(outcome.kind, outcome.violation, example);
  }

  /** An answer that broke a rule: a fuzz rule (test/fuzz/check.ts), or a success outside its response schema. */
  violation(kind: string, violation: string, example: string): void {
    this.ruleViolations += 1;
    this.keep(this.examples.ruleViolations, `${kind} ${violation.slice(0, 40)}`, example);
  }

  latencyRows(): LatencyRow[] {
    return [...this.latencies.entries()]
      .map(([kind, times]) => {
        const sorted = [...times].sort((a, b) => a - b);
        return {
          kind,
          count: sorted.length,
          p50: percentile(sorted, 0.5),
          p95: percentile(sorted, 0.95),
          p99: percentile(sorted, 0.99),
          max: sorted.at(-1) ?? 0,
        };
      })
      .sort((a, b) => a.kind.localeCompare(b.kind));
  }

  private keep(list: Map<string, string>, key: string, example: string): void {
    if (!list.has(key) && list.size < EXAMPLES_PER_LIST) list.set(key, example.slice(0, 400));
  }
}

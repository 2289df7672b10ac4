/**
 * How far fuzzed bodies get into the service, per operation: a request refused for a missing
 * field or by schema validation never reached the checks behind it (ids that must exist, the SQL
 * analyzer, job starts). `npm run fuzz` prints it.
 */
import type { FuzzOutcome } from './check';

/** Mutations that keep the body a parsed value built on the starting request. */
const BODY_KEEPING: ReadonlySet<string> = new Set(['valid-shaped', 'hostile-field', 'unknown-field']);

interface Row {
  /** Body-keeping requests, and those not refused for a missing field. */
  sent: number;
  pastRequired: number;
  /** Valid-shaped requests, those past validation (not 10-1400 or 10-400), and the 2xx among them. */
  valid: number;
  validPast: number;
  validAccepted: number;
  /** What the valid-shaped requests were answered: status and code → count. */
  readonly answers: Map<string, number>;
}

/** Collects outcomes and tells, per operation with a body, how deep its requests got. */
export class BodyDepth {
  private readonly rows = new Map<string, Row>();

  add(outcome: FuzzOutcome): void {
    const { request } = outcome;
    if (request.body === undefined || !BODY_KEEPING.has(request.mutation)) return;
    const row = this.rows.get(request.operationId) ?? {
      sent: 0,
      pastRequired: 0,
      valid: 0,
      validPast: 0,
      validAccepted: 0,
      answers: new Map<string, number>(),
    };
    this.rows.set(request.operationId, row);
    row.sent += 1;
    if (!outcome.missingField) row.pastRequired += 1;
    if (request.mutation !== 'valid-shaped') return;
    row.valid += 1;
    if (outcome.code !== '10-1400' && outcome.code !== '10-400') row.validPast += 1;
    if (outcome.status < 300) row.validAccepted += 1;
    const answer = `${outcome.status}${outcome.code === undefined ? '' : ` ${outcome.code}`}`;
    row.answers.set(answer, (row.answers.get(answer) ?? 0) + 1);
  }

  /** One row per operation: header first. */
  table(): (string | number)[][] {
    const percent = (part: number, whole: number) => (whole === 0 ? '-' : Math.round((100 * part) / whole));
    return [
      [
        'operation',
        'requests',
        'past required %',
        'valid-shaped',
        'past validation %',
        '2xx %',
        'valid-shaped answers',
      ],
      ...[...this.rows.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([operation, row]) => [
          operation,
          row.sent,
          percent(row.pastRequired, row.sent),
          row.valid,
          percent(row.validPast, row.valid),
          percent(row.validAccepted, row.valid),
          [...row.answers.entries()]
            .sort(([, a], [, b]) => b - a)
            .map(([answer, count]) => `${answer} ×${count}`)
            .join(', '),
        ]),
    ];
  }
}

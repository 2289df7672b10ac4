/**
 * Failures as values a caller can branch on: every refusal of the service is an RFC 7807
 * problem with a catalogue code (docs/errors), thrown as a `ProblemError`; a job that ends
 * FAILED or ABORTED is a `JobFailedError` with its job's code.
 */

/** The problem body the service answers with (application/problem+json). */
export interface ProblemBody {
  readonly type?: string;
  readonly title?: string;
  readonly status?: number;
  readonly detail?: string;
  readonly instance?: string;
  readonly code?: string;
  readonly timestamp?: string;
  readonly extraDetails?: Readonly<Record<string, unknown>>;
  readonly traceId?: string;
}

/** A refusal of the service: its HTTP status, catalogue code, message and parameters. */
export class ProblemError extends Error {
  override readonly name = 'ProblemError';
  /** The catalogue code, e.g. 30-1106; `HTTP-<status>` when the answer was not a problem. */
  readonly code: string;
  readonly status: number;
  /** The problem's extraDetails: the figures or fields the code names (10-1400: field → rule). */
  readonly params: Readonly<Record<string, unknown>>;
  readonly problem: ProblemBody;
  /** The method and path that were refused. */
  readonly operation: string;

  constructor(status: number, problem: ProblemBody, operation: string) {
    const code = problem.code ?? `HTTP-${status}`;
    super(`${code} ${problem.detail ?? problem.title ?? `HTTP ${status}`}`);
    this.code = code;
    this.status = status;
    this.params = problem.extraDetails ?? {};
    this.problem = problem;
    this.operation = operation;
  }

  /** The problem's human-readable explanation. */
  get detail(): string {
    return this.problem.detail ?? this.problem.title ?? `HTTP ${this.status}`;
  }
}

/** The problem a failed response carries, or a stand-in naming its status when it has none. */
export async function problemOf(response: Response): Promise<ProblemBody> {
  const text = await response.text().catch(() => '');
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null) return parsed as ProblemBody;
  } catch {
    // Not JSON (a gateway's HTML page): the status says what there is to say.
  }
  return { status: response.status, title: response.statusText, detail: text.slice(0, 500) || undefined };
}

/** A job that ended FAILED or ABORTED: its status and the job's error code and message. */
export class JobFailedError extends Error {
  override readonly name = 'JobFailedError';

  constructor(
    readonly status: 'FAILED' | 'ABORTED',
    readonly code: string,
    readonly detail: string,
    /** The job's resource as last read. */
    readonly resource: unknown,
  ) {
    super(`job ${status}: ${code} ${detail}`);
  }
}

/**
 * One request of the soak, timed and recorded in the tally whatever comes back, no answer
 * included: the soak goes on after anything but the twin's death.
 */
import type { ApiResponse } from '../support/api-client';
import { Problem } from '../../shared/errors/problem-body';
import type { Tally } from './tally';

/** The longest a request may take before the soak counts it as unanswered (the hostile SQL's included). */
export const REQUEST_TIMEOUT_MS = 120_000;

export interface Sent<T> {
  readonly response: ApiResponse<T> | undefined;
  readonly ms: number;
}

function failureDetail(response: ApiResponse<unknown>): string {
  const problem = Problem.safeParse(response.json);
  return problem.success ? `${problem.data.title}: ${problem.data.detail}` : response.text.slice(0, 200);
}

/**
 * Sends one request and records its outcome under `kind`; `describe` says what was asked (for
 * the examples), `judge` (hostile requests) what rule the answer broke, if any.
 */
export async function timed<T>(
  tally: Tally,
  request: {
    readonly kind: string;
    readonly hostile: boolean;
    readonly describe: string;
    readonly judge?: (response: ApiResponse<T>) => string | undefined;
  },
  send: () => Promise<ApiResponse<T>>,
): Promise<Sent<T>> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${REQUEST_TIMEOUT_MS / 1000} s`)), REQUEST_TIMEOUT_MS);
  });
  try {
    const response = await Promise.race([send(), timeout]);
    const ms = performance.now() - started;
    tally.record({
      kind: request.kind,
      hostile: request.hostile,
      status: response.status,
      code: response.status >= 400 ? Problem.safeParse(response.json).data?.code : undefined,
      ms,
      detail: `${request.describe}${response.status >= 400 ? ` → ${failureDetail(response)}` : ''}`,
      violation: request.judge?.(response),
    });
    return { response, ms };
  } catch (error) {
    const ms = performance.now() - started;
    const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : '';
    tally.record({
      kind: request.kind,
      hostile: request.hostile,
      status: 0,
      code: undefined,
      ms,
      detail: `${request.describe} → ${String(error)}${cause}`,
    });
    return { response: undefined, ms };
  } finally {
    clearTimeout(timer);
  }
}

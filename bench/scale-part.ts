/**
 * A part of the scale section (bench/scale.ts, bench/scale-fargate.ts) that may fail: its report,
 * or why it failed, so that the other parts still report.
 */

/** A part of the section that failed: the others still report. */
export interface Failed {
  readonly error: string;
}

/** Whether a part failed. */
export const isFailed = <T extends object>(value: T | Failed): value is Failed => 'error' in value;

/** Runs one part; a failure is printed and reported as Failed instead of ending the section. */
export async function part<T>(measure: () => Promise<T>): Promise<T | Failed> {
  try {
    return await measure();
  } catch (error) {
    console.error(error);
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

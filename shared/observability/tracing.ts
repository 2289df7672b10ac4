// First: it chooses the X-Ray SDK's mode before the Tracer loads the SDK.
import './xray-mode';
import { Tracer } from '@aws-lambda-powertools/tracer';
import { SERVICE_NAME } from './metric-names';

/**
 * X-Ray traces through Powertools' Tracer. Lambda (tracing active, infra/stacks/service-function.ts)
 * opens each invocation's segment; the request or job wrapper opens a subsegment under it
 * annotated with the tenant, the route or job, and the outcome's code, so a trace is found by
 * any of them; the SDK clients the service keeps (traceClient) and outbound HTTP calls (the
 * Tracer's default) are subsegments of it. Step Functions traces its executions and the
 * Lambdas it invokes join them. Outside Lambda (the twin, tests, Fargate tasks, which have no
 * X-Ray daemon) the Tracer is off and every call here does nothing.
 */
export const tracer = new Tracer({
  serviceName: SERVICE_NAME,
  enabled: process.env.AWS_LAMBDA_FUNCTION_NAME !== undefined,
});

/** X-Ray annotation values: indexed, so traces can be filtered by them. */
export type Annotations = Readonly<Record<string, string | number | boolean | undefined>>;

/** An open subsegment of the invocation's trace. */
export interface Span {
  /** Adds indexed annotations (tenant, code, ...) to it. */
  annotate(annotations: Annotations): void;
  /** Marks it failed with `error`. */
  fail(error: unknown): void;
  /** Closes it and makes its parent the current segment again. */
  close(): void;
}

const NO_SPAN: Span = { annotate() {}, fail() {}, close() {} };

/** Opens a subsegment `## name` with `annotations` under the invocation's segment; a no-op span when tracing is off. */
export function openSpan(name: string, annotations: Annotations): Span {
  if (!tracer.isTracingEnabled()) return NO_SPAN;
  const parent = tracer.getSegment();
  if (parent === undefined) return NO_SPAN;
  const subsegment = parent.addNewSubsegment(`## ${name}`);
  tracer.setSegment(subsegment);
  const annotate = (values: Annotations) => {
    for (const [key, value] of Object.entries(values)) if (value !== undefined) subsegment.addAnnotation(key, value);
  };
  annotate({ Service: SERVICE_NAME, ...annotations });
  tracer.annotateColdStart();
  return {
    annotate,
    fail: (error) => subsegment.addError(error instanceof Error ? error : new Error(String(error))),
    close: () => {
      subsegment.close();
      tracer.setSegment(parent);
    },
  };
}

/** An AWS SDK v3 client whose calls are subsegments of the trace (unchanged when tracing is off). */
export function traceClient<T>(client: T): T {
  return tracer.captureAWSv3Client(client);
}

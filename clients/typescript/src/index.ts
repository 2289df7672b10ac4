/**
 * @dps/client: a typed client of the Data Preparation Service. Types are generated from the
 * service's OpenAPI document (src/generated, `npm run generate-client`); the rest is the
 * hand-written layer described in clients/typescript/README.md.
 */
export { createDpsClient, ok, type DpsClient, type DpsClientOptions, type ListItem, type ListPath } from './client.js';
export { TokenSource, type ClientCredentials } from './auth.js';
export {
  waitForJob,
  type JobOutcome,
  type JobProgressEvent,
  type JobRef,
  type JobStatus,
  type WaitOptions,
} from './jobs.js';
export { JobFailedError, ProblemError, type ProblemBody } from './problem.js';
export { DEFAULT_RETRY, retryAfterMs, type RetryOptions } from './transport.js';
export { OPERATIONS, IDEMPOTENT_CREATES } from './generated/operations.js';
export type { paths, operations, components } from './generated/openapi.js';

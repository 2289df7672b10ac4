import * as z from 'zod';

/**
 * Each Lambda's memory size, which a stage may change (CDK context "memory", checked at synth):
 * e.g. `"context": { "memory": { "route": 512, "jobs": { "recipe-run": 8192 } } }`. Lambda gives
 * CPU in proportion to memory (1,769 MB = one vCPU), so a size buys CPU as much as memory; why
 * each default is what it is: docs/scale.md. An engine worker's DuckDB follows its function's
 * size (Lambda's AWS_LAMBDA_FUNCTION_MEMORY_SIZE, shared/engine/limits.ts), so a bigger job
 * size gives its engine more memory before it spills and more threads.
 */

/** API routes: 0.58 vCPU; requests wait on DynamoDB more than they compute. */
export const ROUTE_MEMORY_MB = 1024;
/**
 * A route that runs DuckDB (`engine: true`, the recipe SQL analyzer): one full vCPU, where
 * single-threaded work stops getting faster, for loading the engine on a cold start and
 * parsing on a warm one.
 */
export const ENGINE_ROUTE_MEMORY_MB = 1769;
/** The authorizer and the $default route's fallback. */
export const PLATFORM_MEMORY_MB = 1024;
/** The retention sweep: pages of deletes, waits rather than CPU. */
export const RETENTION_MEMORY_MB = 512;

/** Lambda's range of memory sizes. */
const MIN_MB = 128;
const MAX_MB = 10_240;

const MemoryMb = z
  .int(`must be a whole number of MB from ${MIN_MB} to ${MAX_MB}`)
  .min(MIN_MB, `must be at least ${MIN_MB} MB, Lambda's smallest size`)
  .max(MAX_MB, `must be at most ${MAX_MB} MB, Lambda's largest size`);

/** A stage's memory sizes in MB; what it leaves out keeps its default. */
export const MemorySizes = z.strictObject({
  /** Every API route's function but the engine routes. */
  route: MemoryMb.default(ROUTE_MEMORY_MB),
  /** API routes that run DuckDB. */
  engineRoute: MemoryMb.default(ENGINE_ROUTE_MEMORY_MB),
  /** The authorizer and the fallback route. */
  platform: MemoryMb.default(PLATFORM_MEMORY_MB),
  retention: MemoryMb.default(RETENTION_MEMORY_MB),
  /** By job kind (a job declaration's name, e.g. `import`, `recipe-run`), or `record-job-failure`; the declaration's size otherwise. */
  jobs: z.record(z.string(), MemoryMb).default({}),
});
/** As a stage gives them. */
export type MemorySettings = z.input<typeof MemorySizes>;
/** With every default filled in. */
export type MemorySizes = z.output<typeof MemorySizes>;

/**
 * Checks memory sizes given as CDK context (any JSON, or a JSON string from `-c memory=...`)
 * against `knownJobs` (the deployed job kinds and the failure recorder), naming every wrong
 * value and where it is.
 */
export function parseMemorySizes(value: unknown, knownJobs: readonly string[]): MemorySizes {
  const given = typeof value === 'string' ? (JSON.parse(value) as unknown) : (value ?? {});
  const parsed = MemorySizes.safeParse(given);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `memory.${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`context "memory" is invalid: ${problems.join('; ')}`);
  }
  const unknown = Object.keys(parsed.data.jobs).filter((kind) => !knownJobs.includes(kind));
  if (unknown.length > 0)
    throw new Error(
      `context "memory" is invalid: memory.jobs names unknown job kind(s) ${unknown.join(', ')}; job kinds: ${knownJobs.join(', ')}`,
    );
  return parsed.data;
}

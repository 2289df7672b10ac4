/**
 * The fuzz suite, bounded: every operation of the served OpenAPI document × every kind of
 * hostile request (test/fuzz/requests.ts), drawn from a fixed seed. No answer may be a 5xx,
 * every 4xx is a problem with a catalogue code, no answer names the implementation, and the
 * service still serves normal requests afterwards. `npm run fuzz` is the long run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeOutcome, sendAll, type FuzzOutcome } from '../../fuzz/check';
import {
  enableFuzzedFeatures,
  FUZZ_BUCKET,
  FUZZ_TWIN_ENVIRONMENT,
  fuzzFixtures,
  stillServes,
} from '../../fuzz/fixtures';
import { operationsOf, operationsWithoutStart } from '../../fuzz/operations';
import { fuzzCases, fuzzPlan, type FuzzContext } from '../../fuzz/requests';
import { startTestTwin, type TestTwin } from '../../support/harness';

const SEED = 20_240_611;
/**
 * Requests per (operation, mutation) pair: about 630 in all. Valid bodies start real jobs (imports,
 * exports, node runs, analyses). Three per pair cost the suite 40 s of CPU; `npm run fuzz` sends
 * many more.
 */
const PER_CASE = 2;

let env: TestTwin;
let context: FuzzContext;
let document: unknown;

beforeAll(async () => {
  env = await startTestTwin({ buckets: [FUZZ_BUCKET], environment: FUZZ_TWIN_ENVIRONMENT });
  // The retention and assistant routes reach their own checks, not 10-1501.
  await enableFuzzedFeatures(env);
  ({ document, context } = await fuzzFixtures(env));
});
afterAll(() => env?.close());

describe('starting requests', () => {
  it('exist for every operation that takes a body, and fuzzing refuses to start without one', () => {
    const operations = operationsOf(document);
    expect(operationsWithoutStart(operations, context.starts)).toEqual([]);
    const withBodies = operations.filter((operation) => Object.keys(operation.bodies).length > 0);
    expect(withBodies.length).toBeGreaterThan(30);
    const [dropped] = withBodies;
    const { [dropped!.operationId]: _dropped, ...others } = context.starts;
    expect(() => fuzzCases(document, { ...context, starts: others })).toThrow(dropped!.operationId);
  });

  it('pass validation on the twin: each reaches the checks behind the schemas', async () => {
    const refused: string[] = [];
    for (const operation of operationsOf(document)) {
      const start = context.starts[operation.operationId];
      if (start === undefined) continue;
      const path = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => String(start.params?.[name]));
      const response = await env.admin.raw(operation.method, path, { body: start.body });
      const code = response.status >= 400 ? response.problem.code : undefined;
      if (response.status >= 500 || code === '10-1400' || code === '10-400')
        refused.push(`${operation.operationId}: ${response.status} ${response.text.slice(0, 300)}`);
    }
    expect(refused).toEqual([]);
  });
});

describe('fuzzing every operation of the OpenAPI document', () => {
  const outcomes: FuzzOutcome[] = [];

  it('answers hostile requests with problems, never a 5xx or an internal name', { timeout: 120_000 }, async () => {
    const plan = fuzzPlan(fuzzCases(document, context), { seed: SEED, perCase: PER_CASE });
    await sendAll(env.admin, plan, 4, (outcome) => outcomes.push(outcome));
    const failures = outcomes.filter((outcome) => outcome.violations.length > 0).map(describeOutcome);
    expect(failures).toEqual([]);
  });

  it('reached every operation and refused most of what it sent', () => {
    const operations = operationsOf(document).map((operation) => operation.operationId);
    expect(new Set(outcomes.map((outcome) => outcome.request.operationId))).toEqual(new Set(operations));
    const refused = outcomes.filter((outcome) => outcome.status >= 400).length;
    expect(refused / outcomes.length).toBeGreaterThan(0.8);
  });

  it('still serves a normal client afterwards', async () => {
    await expect(stillServes(env)).resolves.toBeUndefined();
  });
});

describe('what the fuzzer found, pinned', () => {
  it('refuses a path parameter that is not valid percent-encoded UTF-8 with 10-1400 naming it', async () => {
    for (const [path, parameter] of [
      ['/connections/%zz', 'connection_id'],
      ['/connections/%', 'connection_id'],
      ['/connections/%E0%A4%A', 'connection_id'],
      ['/connections/%FF/test', 'connection_id'],
      ['/errors/%zz', 'code'],
      ['/data-tables/1/versions/%ED%A0%80', 'version_number'],
    ] as const) {
      const response = await env.admin.raw(
        path.startsWith('/connections/%FF') ? 'POST' : 'GET',
        path,
        path.endsWith('/test') ? { body: { type: 'object_store' } } : {},
      );
      expect(response.status, path).toBe(400);
      expect(response.problem).toMatchObject({
        code: '10-1400',
        extraDetails: { [parameter]: 'must be valid percent-encoded UTF-8' },
      });
    }
  });

  it('refuses a query parameter that is not valid percent-encoded UTF-8 with 10-1400 naming it', async () => {
    for (const query of ['filter=%zz', 'filter=%', 'sort=%E0%A4%A', 'filter=%C0%AF']) {
      const response = await env.admin.raw('GET', `/connections?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.problem).toMatchObject({
        code: '10-1400',
        extraDetails: { [query.split('=')[0]!]: 'must be valid percent-encoded UTF-8' },
      });
    }
    const name = await env.admin.raw('GET', '/connections?%zz=1');
    expect(name.problem).toMatchObject({
      code: '10-1400',
      extraDetails: { query: 'must be valid percent-encoded UTF-8' },
    });
  });

  it('refuses a merge patch nested 10,000 and 40,000 levels with 10-1400 naming the body', async () => {
    for (const depth of [10_000, 40_000]) {
      const body = `{"id":1,"lock_version":1,"type":"object_store","description":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;
      const response = await env.admin.raw('PATCH', '/connections/1', {
        body,
        contentType: 'application/merge-patch+json',
      });
      expect(response.status, `${depth} levels`).toBe(400);
      expect(response.problem).toMatchObject({
        code: '10-1400',
        extraDetails: { body: 'must not nest objects and arrays deeper than 64 levels' },
      });
    }
  });
});

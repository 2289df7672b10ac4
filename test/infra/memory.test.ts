/**
 * Memory sizes a stage sets (CDK context "memory", infra/stacks/memory.ts): each one changes
 * the synthesized MemorySize of its functions and nothing else's, and a wrong value or an
 * unknown job kind fails the synth with a message that names it. Wiring only: no bundling.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTHORIZER_HANDLER, FALLBACK_HANDLER, routes } from '../../functions/routes';
import { ENGINE_ROUTE_MEMORY_MB, parseMemorySizes, ROUTE_MEMORY_MB } from '../../infra/stacks/memory';
import { DEFAULT_WORKER_MEMORY_MB } from '../../shared/engine/limits';
import { functionOf, synthesize, SYNTH_TIMEOUT_MS, workerOf, type SynthesizedStage } from './synth';

const META_ROUTES = routes.filter((route) => route.tag === 'meta');
const ENGINE_ROUTE = routes.find((route) => route.engine === true)!;
const SET = {
  route: 512,
  engineRoute: 3008,
  platform: 256,
  retention: 1024,
  jobs: { 'recipe-run': 8192, import: 6144, 'record-job-failure': 128 },
};

let stage: SynthesizedStage;
let defaults: SynthesizedStage;

beforeAll(() => {
  stage = synthesize({ stage: 'memory', routes: [...META_ROUTES, ENGINE_ROUTE], memory: SET, bundle: false });
  defaults = synthesize({ stage: 'memory-defaults', routes: [...META_ROUTES, ENGINE_ROUTE], bundle: false });
}, SYNTH_TIMEOUT_MS * 2);
afterAll(() => {
  stage?.close();
  defaults?.close();
});

const memoryOf = (synthesized: SynthesizedStage, handler: string) =>
  functionOf(synthesized, handler).properties.MemorySize;

describe('a stage’s memory sizes', () => {
  it('set the MemorySize of the routes, the engine routes, the authorizer, the fallback and the retention sweep', () => {
    expect(META_ROUTES.map((route) => memoryOf(stage, route.handler))).toEqual(META_ROUTES.map(() => 512));
    expect(memoryOf(stage, ENGINE_ROUTE.handler)).toBe(3008);
    expect([memoryOf(stage, AUTHORIZER_HANDLER), memoryOf(stage, FALLBACK_HANDLER)]).toEqual([256, 256]);
    expect(memoryOf(stage, 'retention/sweep')).toBe(1024);
  });

  it('set a job kind’s worker, and leave the kinds they do not name at their declared size', () => {
    expect(workerOf(stage, 'run-recipe').properties.MemorySize).toBe(8192);
    expect(workerOf(stage, 'import-data-version').properties.MemorySize).toBe(6144);
    expect(workerOf(stage, 'record-job-failure').properties.MemorySize).toBe(128);
    expect(workerOf(stage, 'export-multi-part').properties.MemorySize).toBe(DEFAULT_WORKER_MEMORY_MB);
  });

  it('default to the sizes docs/scale.md gives when the stage sets none', () => {
    expect(memoryOf(defaults, META_ROUTES[0]!.handler)).toBe(ROUTE_MEMORY_MB);
    expect(memoryOf(defaults, ENGINE_ROUTE.handler)).toBe(ENGINE_ROUTE_MEMORY_MB);
    expect(memoryOf(defaults, AUTHORIZER_HANDLER)).toBe(1024);
    expect(memoryOf(defaults, 'retention/sweep')).toBe(512);
    expect(workerOf(defaults, 'run-recipe').properties.MemorySize).toBe(DEFAULT_WORKER_MEMORY_MB);
    expect(workerOf(defaults, 'record-job-failure').properties.MemorySize).toBe(256);
  });
});

describe('wrong memory sizes', () => {
  const kinds = ['import', 'recipe-run', 'record-job-failure'];

  it('are refused, each named, with Lambda’s range', () => {
    expect(() => parseMemorySizes({ route: 64, jobs: { import: 20_000 } }, kinds)).toThrow(
      'context "memory" is invalid: memory.route: must be at least 128 MB, Lambda\'s smallest size; ' +
        "memory.jobs.import: must be at most 10240 MB, Lambda's largest size",
    );
    expect(() => parseMemorySizes({ platform: 1024.5 }, kinds)).toThrow(
      'memory.platform: must be a whole number of MB from 128 to 10240',
    );
    expect(() => parseMemorySizes({ routes: 512 }, kinds)).toThrow(/^context "memory" is invalid: memory\.: .*routes/);
  });

  it('are refused for a job kind the stage does not deploy, naming the kinds', () => {
    expect(() => parseMemorySizes({ jobs: { imports: 2048 } }, kinds)).toThrow(
      'memory.jobs names unknown job kind(s) imports; job kinds: import, recipe-run, record-job-failure',
    );
  });

  it('fail the synth of a stage', () => {
    expect(() =>
      synthesize({ stage: 'memory-wrong', routes: META_ROUTES, memory: { engineRoute: 0 }, bundle: false }),
    ).toThrow('memory.engineRoute: must be at least 128 MB');
  });

  it('are read from a JSON string, as `cdk synth -c memory=...` gives them', () => {
    expect(parseMemorySizes('{"route":768}', kinds)).toEqual({
      route: 768,
      engineRoute: ENGINE_ROUTE_MEMORY_MB,
      platform: 1024,
      retention: 512,
      jobs: {},
    });
  });
});

import { describe, expect, it } from 'vitest';
import { MAX_RECIPE_NODES } from '../../../shared/datasets/bindings';
import { recipeRunJob } from '../../../shared/datasets/jobs';
import type { JobInput } from '../../../shared/jobs/job-ref';
import { fitsTaskOverride, jobLaunch, TASK_OVERRIDES_LIMIT } from '../../../shared/jobs/launch';

/** A recipe run's machine input building `nodes` nodes, each reading `sources` upstream outputs by long aliases. */
function recipeRunInput(nodes: number, sources: number): JobInput<unknown> {
  const build = Array.from({ length: nodes }, (_, index) => ({
    node_id: 1000 + index,
    inputs: {
      recipe_id: 5000 + index,
      recipe_version_number: 12,
      recipe_lock_version: 31,
      sources: Array.from({ length: sources }, (_, at) => ({
        alias: `upstream_orders_by_customer_${at}`,
        node_id: 900 + at,
        upstream_run_id: '0f9c4f3e-5b8e-4c3a-9d2f-6a1b2c3d4e5f',
      })),
    },
  }));
  const params = recipeRunJob.params.parse({
    dataset_id: 7,
    version_number: 3,
    node_id: 1000 + nodes - 1,
    use_sample: false,
    schema_analysis_depth: 'FULL',
    build,
  });
  return {
    job: { tenant_id: 'tenant-a', job_id: '3b0f6a1e-2c4d-4e5f-8a9b-0c1d2e3f4a5b', kind: 'recipe-run' },
    limits: { inactivity_seconds: 900 },
    params,
    launch: jobLaunch('auto', 1),
  } as JobInput<unknown>;
}

describe("a job input in a Fargate task's container override", () => {
  it('fits for a run of a few nodes', () => {
    expect(fitsTaskOverride(recipeRunInput(3, 2))).toBe(true);
  });

  it(`does not fit for a run of the most nodes a graph holds (${MAX_RECIPE_NODES}), whose JSON passes ${TASK_OVERRIDES_LIMIT} characters`, () => {
    const input = recipeRunInput(MAX_RECIPE_NODES, 3);
    expect(JSON.stringify(JSON.stringify(input)).length).toBeGreaterThan(TASK_OVERRIDES_LIMIT);
    expect(fitsTaskOverride(input)).toBe(false);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/errors/app-error';
import { renderDestination, type DynamicValues } from '../../../shared/targets/destination';
import type { TargetData } from '../../../shared/targets/items';
import { connection, target } from './fixtures';

/**
 * Property: whatever a dataset is called, rendering a target writes where the target says and
 * nowhere else: one folder below the target's fixed folders, inside the connection's
 * restriction; a table name of letters, digits and underscores; pricing paths with as many
 * segments as the template. A name that cannot fit fails with the destination's own code.
 */

/** Dataset names as the API accepts them (1 to 255 characters once trimmed), weighted towards separators. */
const datasetName = fc
  .string({
    unit: fc.oneof(
      fc.constantFrom('/', '\\', '.', '..', '{', '}', '{date}', ' ', '_', '\u0000', '\n', 'é', '😀'),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
    ),
    minLength: 1,
    maxLength: 60,
  })
  .filter((name) => name.trim().length > 0);

const values = (dataset_name: string): DynamicValues => ({
  dataset_name,
  version: 3,
  export_id: 9,
  started: new Date('2026-03-04T05:06:07Z'),
});

/** The refusal's code, or undefined when rendering succeeds. */
function codeOf(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return (error as AppError).code;
  }
}

describe('rendering never writes elsewhere', () => {
  it('keeps a folder one segment below the fixed folders, inside the restriction', () => {
    const folder = target({ type: 'bucket', path: 'demo/sales/{dataset_name}/{date}/' });
    const store = connection('object_store', { path_restriction: 'demo/sales/' });
    fc.assert(
      fc.property(datasetName, (name) => {
        const path = renderDestination(folder, store, values(name)).path!;
        const segments = path.split('/');
        expect(segments.slice(0, 2)).toEqual(['demo', 'sales']);
        expect(segments).toHaveLength(5);
        expect(segments[3]).toBe('20260304');
        expect(['.', '..']).not.toContain(segments[2]);
      }),
    );
  });

  it('makes table names of letters, digits and underscores, or refuses them with 30-5004 or 30-5007', () => {
    const table = target({ table_name: '{dataset_name}_v{version}' });
    fc.assert(
      fc.property(datasetName, (name) => {
        let rendered: TargetData | undefined;
        const code = codeOf(() => (rendered = renderDestination(table, connection('warehouse'), values(name))));
        if (code === undefined) expect(rendered!.table_name).toMatch(/^[A-Za-z0-9][A-Za-z0-9_]*_v3$/);
        else expect(['30-5004', '30-5007']).toContain(code);
      }),
    );
  });

  it('keeps the segments of pricing paths', () => {
    const pricing = target({ type: 'pricing', project_path: '\\P\\{dataset_name}', table_path: '{dataset_name}\\T\\' });
    fc.assert(
      fc.property(datasetName, (name) => {
        const rendered = renderDestination(pricing, connection('pricing_dim'), values(name));
        expect(rendered.project_path!.split('\\')).toHaveLength(3);
        expect(rendered.table_path!.split('\\')).toHaveLength(3);
      }),
    );
  });
});

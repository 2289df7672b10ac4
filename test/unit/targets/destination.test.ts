import { describe, expect, it } from 'vitest';
import {
  assertKnownParameters,
  checkPricingPaths,
  checkTableName,
  renderDestination,
  type DynamicValues,
} from '../../../shared/targets/destination';
import { refusal } from '../../support/refusal';
import { connection, target } from './fixtures';

/** The target path grammar of docs/targets.md, without a store. */

const VALUES: DynamicValues = {
  dataset_name: 'Sales EU/2024',
  version: 7,
  export_id: 42,
  started: new Date('2026-03-04T05:06:07.890Z'),
};

describe('dynamic parameters', () => {
  it.each(['{dataset_name}', '{version}', '{date}', '{time}', '{export_id}', 'a{date}b{time}', 'none'])(
    'accepts %j',
    (text) => {
      expect(() => assertKnownParameters(text)).not.toThrow();
    },
  );

  it.each([
    ['x{region}', '{region}'],
    ['{Date}', '{Date}'],
    ['{ date }', '{ date }'],
    ['{date', '{date'],
    ['a}b', '}'],
    ['{{date}}', '{'],
    ['{}', '{}'],
  ])('refuses %j naming %j (30-5005)', (text, token) => {
    expect(refusal(() => assertKnownParameters(text))).toMatchObject({
      code: '30-5005',
      message: `Unsupported dynamic parameter ${token}`,
    });
  });
});

describe('table names', () => {
  it('counts the limit of the connection type (30-5004)', () => {
    expect(() => checkTableName('a'.repeat(255), 'warehouse')).not.toThrow();
    expect(refusal(() => checkTableName('a'.repeat(256), 'warehouse'))).toMatchObject({
      code: '30-5004',
      message: 'Table name exceeds 255 characters',
    });
    expect(() => checkTableName('a'.repeat(1024), 'analytics_db')).not.toThrow();
    expect(refusal(() => checkTableName('a'.repeat(1025), 'analytics_db'))).toMatchObject({
      code: '30-5004',
      message: 'Table name exceeds 1024 characters',
    });
  });

  it('checks the first character before parameters and characters (30-5007)', () => {
    expect(refusal(() => checkTableName('_{nope}-x', 'warehouse'))).toMatchObject({
      code: '30-5007',
      message: 'First character of _{nope}-x cannot be an underscore or space',
    });
    expect(refusal(() => checkTableName(' t', 'warehouse'))).toMatchObject({ code: '30-5007' });
    // A parameter may start the name: what it becomes is checked when an export renders it.
    expect(() => checkTableName('{dataset_name}_t', 'warehouse')).not.toThrow();
  });

  it('accepts letters, digits and underscores around parameters only (30-5006)', () => {
    expect(() => checkTableName('Sales_2024_{version}', 'warehouse')).not.toThrow();
    expect(() => checkTableName('2024_sales', 'warehouse')).not.toThrow();
    for (const name of ['a-b', 'a b', 'a.b', 'é', 'a"b', 'a`b', 'a$b'])
      expect(
        refusal(() => checkTableName(name, 'warehouse')),
        name,
      ).toMatchObject({ code: '30-5006' });
  });
});

describe('pricing paths', () => {
  it('accepts a project path with a leading backslash and a table path with a trailing one', () => {
    expect(() => checkPricingPaths('\\P', 'T\\')).not.toThrow();
    expect(() => checkPricingPaths('\\Pricing\\{dataset_name}', 'Tables\\{date}\\')).not.toThrow();
  });

  it.each(['P', 'P\\', '\\P\\', '\\'])('refuses the project path %j (30-5008)', (project) => {
    expect(refusal(() => checkPricingPaths(project, 'T\\'))).toMatchObject({ code: '30-5008' });
  });

  it.each(['\\T\\', 'T', '\\T', '\\'])('refuses the table path %j (30-5009)', (table) => {
    expect(refusal(() => checkPricingPaths('\\P', table))).toMatchObject({ code: '30-5009' });
  });

  it('refuses empty segments, naming the field (10-1400)', () => {
    expect(refusal(() => checkPricingPaths('\\P', 'A\\\\B\\'))).toMatchObject({
      code: '10-1400',
      extraDetails: { table_path: expect.any(String) },
    });
  });
});

describe('rendering a destination for one export', () => {
  it('replaces every parameter, turning what a table name cannot hold into underscores', () => {
    const rendered = renderDestination(
      target({ table_name: 'T_{dataset_name}_v{version}_{date}_{time}_{export_id}' }),
      connection('warehouse'),
      VALUES,
    );
    expect(rendered.table_name).toBe('T_Sales_EU_2024_v7_20260304_050607_42');
  });

  it('keeps a value inside one folder, and a lone dot-name from reading as . or ..', () => {
    const folder = target({ type: 'bucket', path: 'demo/sales/{dataset_name}/{date}/' });
    expect(
      renderDestination(folder, connection('object_store', { path_restriction: 'demo/sales/' }), VALUES).path,
    ).toBe('demo/sales/Sales EU_2024/20260304/');
    expect(renderDestination(folder, connection('object_store'), { ...VALUES, dataset_name: '..' }).path).toBe(
      'demo/sales/__/20260304/',
    );
  });

  it('keeps backslashes of values out of pricing paths', () => {
    const pricing = target({ type: 'pricing', project_path: '\\P\\{dataset_name}', table_path: 'T\\{version}\\' });
    expect(renderDestination(pricing, connection('pricing_dim'), { ...VALUES, dataset_name: 'a\\b' })).toMatchObject({
      project_path: '\\P\\a_b',
      table_path: 'T\\7\\',
    });
  });

  it('fails what no longer fits once rendered: a name grown too long, or starting with an underscore', () => {
    expect(
      refusal(() =>
        renderDestination(target({ table_name: 'T{dataset_name}' }), connection('warehouse'), {
          ...VALUES,
          dataset_name: 'x'.repeat(300),
        }),
      ),
    ).toMatchObject({
      code: '30-5004',
    });
    expect(
      refusal(() =>
        renderDestination(target({ table_name: '{dataset_name}' }), connection('warehouse'), {
          ...VALUES,
          dataset_name: ' sales',
        }),
      ),
    ).toMatchObject({
      code: '30-5007',
    });
  });

  it('checks the folder against the connection restriction as it is now (30-1106)', () => {
    const folder = target({ type: 'bucket', path: 'demo/sales/{date}/' });
    expect(
      refusal(() =>
        renderDestination(folder, connection('object_store', { path_restriction: 'demo/finance/' }), VALUES),
      ),
    ).toMatchObject({ code: '30-1106' });
  });
});

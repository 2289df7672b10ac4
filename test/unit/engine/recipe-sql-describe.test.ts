import { describe, expect, it } from 'vitest';
import { describeRecipeOutput, type AliasColumns } from '../../../shared/engine/recipe-sql-describe';
import { refusal } from './recipe-sql-support';

/** The output columns of a recipe query, described by DuckDB from its input tables' columns. */

describe('describeRecipeOutput', () => {
  const tables: AliasColumns[] = [
    {
      alias: 'orders',
      columns: [
        { name: 'id', type: 'BIGINT' },
        { name: 'customer name', type: 'VARCHAR' },
        { name: 'total', type: 'DECIMAL(18,3)' },
        { name: 'tags', type: 'VARCHAR[]' },
        { name: 'at', type: 'TIMESTAMP WITH TIME ZONE' },
      ],
    },
    {
      alias: 'customers',
      columns: [
        { name: 'id', type: 'BIGINT' },
        { name: 'address', type: 'STRUCT(city VARCHAR, zip INTEGER)' },
      ],
    },
  ];

  it('answers the output columns with their DuckDB types, without running the query', async () => {
    const code = `SELECT o.id, upper(o."customer name") AS name, o.total * 2 AS double_total, c.address.city, len(o.tags) AS tag_count,
      date_trunc('day', o.at) AS day, count(*) OVER () AS n FROM orders o JOIN customers c USING (id) WHERE 1 / 0 = 1`;
    const description = await describeRecipeOutput(code, tables);
    expect(description.referenced_aliases).toEqual(['orders', 'customers']);
    expect(description.columns).toEqual([
      { name: 'id', type: 'BIGINT' },
      { name: 'name', type: 'VARCHAR' },
      { name: 'double_total', type: 'DECIMAL(18,3)' },
      { name: 'city', type: 'VARCHAR' },
      { name: 'tag_count', type: 'BIGINT' },
      { name: 'day', type: 'TIMESTAMP WITH TIME ZONE' },
      { name: 'n', type: 'BIGINT' },
    ]);
  });

  it('analyses first: the rules of the analyzer apply', async () => {
    expect(
      (await refusal(describeRecipeOutput("SELECT * FROM read_csv('/etc/passwd'), orders, customers", tables))).code,
    ).toBe('40-50005');
    expect((await refusal(describeRecipeOutput('SELECT * FROM orders', tables))).code).toBe('40-50008');
  });

  it("answers 40-50001 with DuckDB's message when the query does not bind over the columns", async () => {
    const error = await refusal(describeRecipeOutput('SELECT missing FROM orders JOIN customers USING (id)', tables));
    expect([error.code, error.extraDetails?.cause]).toEqual([
      '40-50001',
      expect.stringContaining('"missing" not found'),
    ]);
  });

  it.each([
    ['SQL after the type', 'INTEGER) AS x, (SELECT 1'],
    ['a second statement', 'INTEGER); DROP TABLE orders; --'],
    ['a comment', 'INTEGER /* x */'],
    ['a default', 'INTEGER DEFAULT 1'],
  ])('refuses a column type with %s as 10-1400', async (_name, type) => {
    const error = await refusal(
      describeRecipeOutput('SELECT * FROM orders', [{ alias: 'orders', columns: [{ name: 'id', type }] }]),
    );
    expect([error.code, Object.keys(error.extraDetails ?? {})]).toEqual(['10-1400', ['tables.orders.id']]);
  });

  it('refuses an unknown type, duplicate columns and a table without columns as 10-1400', async () => {
    const one = (columns: AliasColumns['columns']) =>
      describeRecipeOutput('SELECT * FROM orders', [{ alias: 'orders', columns }]);
    expect((await refusal(one([{ name: 'id', type: 'NO_SUCH_TYPE' }]))).extraDetails).toEqual({
      'tables.orders': expect.stringContaining('NO_SUCH_TYPE'),
    });
    expect(
      (
        await refusal(
          one([
            { name: 'id', type: 'INTEGER' },
            { name: 'ID', type: 'INTEGER' },
          ]),
        )
      ).extraDetails,
    ).toEqual({ 'tables.orders': expect.stringContaining('already exists') });
    expect((await refusal(one([]))).extraDetails).toEqual({ 'tables.orders': 'must have at least one column' });
  });
});

/**
 * Column lineage of trino-sql recipes, each against lineage written by hand. The code goes
 * through what a version save does (checkedContent: Trino's analyzer and the tree it stores),
 * then the tracer reads the stored tree as the lineage routes do. Written `alias.column:how`.
 */
import { describe, expect, it } from 'vitest';
import { traceTrinoTree, type RecipeLineage, type TracedInput } from '../../../shared/engine/lineage/trace';
import { checkedContent } from '../../../shared/recipes/content';
import { CUSTOMERS, expectTraced, ORDERS, type ExpectedLineage } from './expected-lineage';

/** Through what a version save does (Trino's analyzer and the tree it stores), then the tracer as the lineage routes read it. */
async function traced(code: string, inputs: readonly TracedInput[]): Promise<RecipeLineage> {
  const content = await checkedContent(
    code,
    inputs.map((input) => input.alias),
    'trino-sql',
  );
  return traceTrinoTree(content.lineage_tree, inputs);
}

async function expectLineage(code: string, inputs: readonly TracedInput[], expected: ExpectedLineage): Promise<void> {
  expectTraced(await traced(code, inputs), expected);
}

describe('column lineage of a trino-sql recipe', () => {
  it('a select list with aliases: Trino names unaliased expressions _col<n> and lower-cases unquoted names', () =>
    expectLineage(
      'SELECT ID, amount * 1.2 AS Gross, CAST(status AS varchar), 1 AS "One", upper(status) FROM orders',
      [ORDERS],
      {
        columns: [
          ['id', ['orders.id:copied']],
          ['gross', ['orders.amount:transformed']],
          ['_col2', ['orders.status:transformed']],
          ['One', []],
          ['_col4', ['orders.status:transformed']],
        ],
      },
    ));

  it('a join: each column from its side, the keys as join, the WHERE as filter', () =>
    expectLineage(
      "SELECT o.id, c.name, o.amount FROM orders o JOIN customers c ON c.id = o.customer_id WHERE c.country = 'FR'",
      [ORDERS, CUSTOMERS],
      {
        columns: [
          ['id', ['orders.id:copied']],
          ['name', ['customers.name:copied']],
          ['amount', ['orders.amount:copied']],
        ],
        indirect: ['customers.id:join', 'orders.customer_id:join', 'customers.country:filter'],
      },
    ));

  it('an aggregate with GROUP BY (by name and position) and HAVING, with Trino aggregates', () =>
    expectLineage(
      "SELECT customer_id, sum(amount) AS total, approx_distinct(status) AS kinds, count(*) AS n, listagg(status, ',') WITHIN GROUP (ORDER BY id) AS statuses FROM orders GROUP BY 1 HAVING max(amount) > 10",
      [ORDERS],
      {
        columns: [
          ['customer_id', ['orders.customer_id:copied']],
          ['total', ['orders.amount:aggregated']],
          ['kinds', ['orders.status:aggregated']],
          ['n', []],
          ['statuses', ['orders.status:aggregated', 'orders.id:sort']],
        ],
        indirect: ['orders.customer_id:group_by', 'orders.amount:filter'],
      },
    ));

  it('a CTE with column aliases, read by the query', () =>
    expectLineage(
      "WITH paid (who, value) AS (SELECT customer_id, amount FROM orders WHERE status = 'paid') SELECT who, value * 2 AS doubled FROM paid",
      [ORDERS],
      {
        columns: [
          ['who', ['orders.customer_id:copied']],
          ['doubled', ['orders.amount:transformed']],
        ],
        indirect: ['orders.status:filter'],
      },
    ));

  it('window functions, inline and named: the value aggregated, PARTITION BY and ORDER BY as window', () =>
    expectLineage(
      'SELECT id, sum(amount) OVER (PARTITION BY customer_id ORDER BY id) AS running, rank() OVER w AS r, lag(amount) OVER w AS prev FROM orders WINDOW w AS (PARTITION BY status ORDER BY amount)',
      [ORDERS],
      {
        columns: [
          ['id', ['orders.id:copied']],
          ['running', ['orders.amount:aggregated', 'orders.customer_id:window', 'orders.id:window']],
          ['r', ['orders.status:window', 'orders.amount:window']],
          ['prev', ['orders.amount:transformed', 'orders.status:window', 'orders.amount:window']],
        ],
      },
    ));

  it('SELECT * over one alias: its columns copied', () =>
    expectLineage('SELECT * FROM orders', [ORDERS], {
      columns: ORDERS.columns!.map((name) => [name, [`orders.${name}:copied`]] as const),
    }));

  it('SELECT * and t.* over two aliases: both sides in order, USING keeps the key once', () =>
    expectLineage('SELECT *, c.* FROM orders o JOIN customers c USING (id)', [ORDERS, CUSTOMERS], {
      columns: [
        ['id', ['orders.id:copied']],
        ['customer_id', ['orders.customer_id:copied']],
        ['amount', ['orders.amount:copied']],
        ['status', ['orders.status:copied']],
        ['name', ['customers.name:copied']],
        ['country', ['customers.country:copied']],
        ['id', ['customers.id:copied']],
        ['name', ['customers.name:copied']],
        ['country', ['customers.country:copied']],
      ],
      indirect: ['orders.id:join', 'customers.id:join'],
    }));

  it('CASE, searched and simple: WHEN conditional, THEN and ELSE transformed', () =>
    expectLineage(
      "SELECT CASE WHEN amount > 100 THEN 'big' ELSE status END AS size, CASE status WHEN 'paid' THEN amount END AS paid FROM orders",
      [ORDERS],
      {
        columns: [
          ['size', ['orders.amount:conditional', 'orders.status:transformed']],
          ['paid', ['orders.status:conditional', 'orders.amount:transformed']],
        ],
      },
    ));

  it('subqueries: in FROM, scalar, IN and EXISTS', () =>
    expectLineage(
      "SELECT big.id, (SELECT max(c.name) FROM customers c WHERE c.id = big.customer_id) AS who FROM (SELECT id, customer_id FROM orders WHERE amount > 10) AS big WHERE big.customer_id IN (SELECT id FROM customers WHERE country = 'FR')",
      [ORDERS, CUSTOMERS],
      {
        columns: [
          ['id', ['orders.id:copied']],
          ['who', ['customers.name:aggregated', 'customers.id:filter', 'orders.customer_id:filter']],
        ],
        indirect: [
          'orders.amount:filter',
          'orders.customer_id:filter',
          'customers.id:filter',
          'customers.country:filter',
        ],
      },
    ));

  it('a set operation: each column from both sides by position; VALUES named _col<n>', () =>
    expectLineage('SELECT id, amount FROM orders UNION ALL VALUES (1, 2) ORDER BY 2', [ORDERS], {
      columns: [
        ['id', ['orders.id:copied']],
        ['amount', ['orders.amount:copied']],
      ],
      indirect: ['orders.amount:sort'],
    }));

  it('what it cannot follow is unknown, never guessed: UNNEST, MATCH_RECOGNIZE, an input whose columns are not known', async () => {
    await expectLineage('SELECT o.id, x FROM orders o CROSS JOIN UNNEST(ARRAY[1, 2]) AS u(x)', [ORDERS], {
      columns: [
        ['id', ['orders.id:copied']],
        ['x', []],
      ],
      unknownColumns: { 2: 'unnest' },
    });
    const matched = await traced(
      'SELECT * FROM orders MATCH_RECOGNIZE (ORDER BY id MEASURES A.amount AS a PATTERN (A) DEFINE A AS amount > 0)',
      [ORDERS],
    );
    expect(matched.columns).toEqual([]);
    expect(matched.unknown).toContain('MATCH_RECOGNIZE');
    await expectLineage('SELECT * FROM orders', [{ alias: 'orders', columns: null }], {
      columns: [],
      unknown: 'whose columns are not known',
    });
  });

  it('a version saved before trino-sql was traced says so', () => {
    expect(traceTrinoTree(undefined, [ORDERS]).unknown).toContain('save it again');
  });
});

/**
 * The column-lineage tracer on a corpus of recipes, each against lineage written by hand: for
 * every output column the input columns it reads and how, and what decides the rows of all of
 * them. Written `alias.column:how`, sorted, so a case reads like the answer a person gives.
 */
import { describe, it } from 'vitest';
import { traceRecipe, type TracedInput } from '../../../shared/engine/lineage/trace';
import { CUSTOMERS, expectTraced, ORDERS, type ExpectedLineage } from './expected-lineage';

async function expectLineage(code: string, inputs: readonly TracedInput[], expected: ExpectedLineage): Promise<void> {
  expectTraced(await traceRecipe(code, inputs), expected);
}

describe('column lineage of one recipe', () => {
  it('copies, transforms and casts columns', () =>
    expectLineage('SELECT id, amount * 1.2 AS gross, CAST(status AS VARCHAR) AS s, 1 AS one FROM orders', [ORDERS], {
      columns: [
        ['id', ['orders.id:copied']],
        ['gross', ['orders.amount:transformed']],
        ['s', ['orders.status:transformed']],
        ['one', []],
      ],
    }));

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

  it('aggregates: aggregated values, group keys, HAVING as filter, ORDER BY as sort', () =>
    expectLineage(
      'SELECT name, count(*) AS n, sum(amount) AS total FROM orders JOIN customers ON customers.id = orders.customer_id GROUP BY name HAVING max(amount) > 3 ORDER BY 3 DESC',
      [ORDERS, CUSTOMERS],
      {
        columns: [
          ['name', ['customers.name:copied']],
          ['n', []],
          ['total', ['orders.amount:aggregated']],
        ],
        indirect: [
          'customers.id:join',
          'orders.customer_id:join',
          'customers.name:group_by',
          'orders.amount:filter',
          'orders.amount:sort',
        ],
      },
    ));

  it('GROUP BY ALL: the items without an aggregate are the keys', () =>
    expectLineage('SELECT status, avg(amount) AS mean FROM orders GROUP BY ALL', [ORDERS], {
      columns: [
        ['status', ['orders.status:copied']],
        ['mean', ['orders.amount:aggregated']],
      ],
      indirect: ['orders.status:group_by'],
    }));

  it('CTEs, chained: through the CTE to the input, its WHERE a filter of the query', () =>
    expectLineage(
      "WITH paid AS (SELECT id, amount FROM orders WHERE status = 'paid'), big AS (SELECT id, amount * 2 AS doubled FROM paid) SELECT doubled, id FROM big",
      [ORDERS],
      {
        columns: [
          ['doubled', ['orders.amount:transformed']],
          ['id', ['orders.id:copied']],
        ],
        indirect: ['orders.status:filter'],
      },
    ));

  it('window functions: the value from its argument, the window from PARTITION BY and ORDER BY', () =>
    expectLineage(
      'SELECT id, sum(amount) OVER (PARTITION BY customer_id ORDER BY id) AS running, lag(amount) OVER (ORDER BY id) AS previous, row_number() OVER () AS rn FROM orders',
      [ORDERS],
      {
        columns: [
          ['id', ['orders.id:copied']],
          ['running', ['orders.amount:aggregated', 'orders.customer_id:window', 'orders.id:window']],
          ['previous', ['orders.amount:transformed', 'orders.id:window']],
          ['rn', []],
        ],
      },
    ));

  it('SELECT * over a join: every column of both inputs, in order', () =>
    expectLineage('SELECT * FROM orders JOIN customers ON customers.id = orders.customer_id', [ORDERS, CUSTOMERS], {
      columns: [
        ['id', ['orders.id:copied']],
        ['customer_id', ['orders.customer_id:copied']],
        ['amount', ['orders.amount:copied']],
        ['status', ['orders.status:copied']],
        ['id', ['customers.id:copied']],
        ['name', ['customers.name:copied']],
        ['country', ['customers.country:copied']],
      ],
      indirect: ['customers.id:join', 'orders.customer_id:join'],
    }));

  it('SELECT * with USING shows the key once', () =>
    expectLineage(
      'SELECT * FROM orders JOIN (SELECT id AS customer_id, name FROM customers) c USING (customer_id)',
      [ORDERS, CUSTOMERS],
      {
        columns: [
          ['id', ['orders.id:copied']],
          ['customer_id', ['orders.customer_id:copied']],
          ['amount', ['orders.amount:copied']],
          ['status', ['orders.status:copied']],
          ['name', ['customers.name:copied']],
        ],
        indirect: ['customers.id:join', 'orders.customer_id:join'],
      },
    ));

  it('EXCLUDE leaves columns out, REPLACE transforms one in place', () =>
    expectLineage('SELECT * EXCLUDE (status) REPLACE (round(amount) AS amount) FROM orders', [ORDERS], {
      columns: [
        ['id', ['orders.id:copied']],
        ['customer_id', ['orders.customer_id:copied']],
        ['amount', ['orders.amount:transformed']],
      ],
    }));

  it('set operations: UNION by position reads both sides, EXCEPT only filters', () =>
    expectLineage(
      'SELECT id, amount FROM orders UNION ALL SELECT id, NULL FROM customers EXCEPT SELECT customer_id, amount FROM orders WHERE status = $$void$$',
      [ORDERS, CUSTOMERS],
      {
        columns: [
          ['id', ['orders.id:copied', 'customers.id:copied']],
          ['amount', ['orders.amount:copied']],
        ],
        indirect: ['orders.customer_id:filter', 'orders.amount:filter', 'orders.status:filter'],
      },
    ));

  it('UNION BY NAME matches columns by name', () =>
    expectLineage(
      'SELECT id, name FROM customers UNION BY NAME SELECT amount AS name, id FROM orders',
      [ORDERS, CUSTOMERS],
      {
        columns: [
          ['id', ['customers.id:copied', 'orders.id:copied']],
          ['name', ['customers.name:copied', 'orders.amount:copied']],
        ],
      },
    ));

  it('subqueries: in FROM, scalar and correlated, IN and EXISTS as filters', () =>
    expectLineage(
      'SELECT s.id, (SELECT max(c.name) FROM customers c WHERE c.id = s.customer_id) AS buyer FROM (SELECT id, customer_id FROM orders WHERE amount > 0) s WHERE s.customer_id IN (SELECT id FROM customers WHERE country = $$FR$$)',
      [ORDERS, CUSTOMERS],
      {
        columns: [
          ['id', ['orders.id:copied']],
          ['buyer', ['customers.name:aggregated', 'customers.id:filter', 'orders.customer_id:filter']],
        ],
        indirect: [
          'orders.amount:filter',
          'orders.customer_id:filter',
          'customers.id:filter',
          'customers.country:filter',
        ],
      },
    ));

  it('CASE: the WHEN as conditional, the results transformed', () =>
    expectLineage("SELECT CASE WHEN status = 'paid' THEN amount ELSE 0 END AS due FROM orders", [ORDERS], {
      columns: [['due', ['orders.amount:transformed', 'orders.status:conditional']]],
    }));

  it('an unaliased expression is named when DuckDB binds it', () =>
    expectLineage('SELECT amount + 1, upper(status) FROM orders', [ORDERS], {
      columns: [
        [null, ['orders.amount:transformed']],
        [null, ['orders.status:transformed']],
      ],
    }));

  it('a recursive CTE to its fixed point', () =>
    expectLineage(
      'WITH RECURSIVE chain(id, root) AS (SELECT id, customer_id FROM orders UNION ALL SELECT chain.id, orders.customer_id FROM chain JOIN orders ON orders.id = chain.root) SELECT * FROM chain',
      [ORDERS],
      {
        columns: [
          ['id', ['orders.id:copied']],
          ['root', ['orders.customer_id:copied']],
        ],
        indirect: ['orders.customer_id:join', 'orders.id:join'],
      },
    ));

  it('lambda parameters are not columns', () =>
    expectLineage('SELECT list_transform([1, 2], x -> x + amount) AS shifted FROM orders', [ORDERS], {
      columns: [['shifted', ['orders.amount:transformed']]],
    }));
});

describe('what the tracer cannot follow is marked, never guessed', () => {
  it('SELECT * over an input whose columns are not known', () =>
    expectLineage('SELECT * FROM orders', [{ alias: 'orders', columns: null }], {
      columns: [],
      unknown: 'orders, whose columns are not known',
    }));

  it('a named column of such an input is still that input’s', () =>
    expectLineage('SELECT amount FROM orders', [{ alias: 'orders', columns: null }], {
      columns: [['amount', ['orders.amount:copied']]],
    }));

  it('an unqualified column among several such inputs', () =>
    expectLineage(
      'SELECT amount FROM orders, customers',
      [
        { alias: 'orders', columns: null },
        { alias: 'customers', columns: null },
      ],
      {
        columns: [['amount', []]],
        unknownColumns: { 1: 'any of several inputs' },
      },
    ));

  it('SELECT * through a PIVOT', () =>
    expectLineage("SELECT * FROM orders PIVOT (sum(amount) FOR status IN ('paid', 'open'))", [ORDERS], {
      columns: [],
      unknown: 'PIVOT',
    }));

  it('columns of a table function', () =>
    expectLineage('SELECT o.id, r.range AS n FROM orders o, range(3) r', [ORDERS], {
      columns: [
        ['id', ['orders.id:copied']],
        ['n', []],
      ],
      unknownColumns: { 2: 'table function range' },
    }));

  it('COLUMNS(...) expanded at bind time', () =>
    expectLineage("SELECT id, COLUMNS('amo.*') FROM orders", [ORDERS], {
      columns: [['id', ['orders.id:copied']]],
      unknown: 'COLUMNS',
    }));
});

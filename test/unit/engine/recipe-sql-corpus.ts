/**
 * Realistic recipe SQL with the aliases each declares and what the analyzer must find in it:
 * the aliases read (in declaration order) and the CTEs defined. Shared by the corpus test and
 * the analyzer bench (npm run bench -- recipe-sql).
 */
export interface CorpusEntry {
  readonly name: string;
  readonly aliases: readonly string[];
  readonly code: string;
  readonly references: readonly string[];
  readonly ctes?: readonly string[];
}

export const RECIPE_SQL_CORPUS: readonly CorpusEntry[] = [
  { name: 'select all', aliases: ['CurrentTable'], code: 'SELECT * FROM CurrentTable', references: ['CurrentTable'] },
  {
    name: 'FROM-first',
    aliases: ['sales'],
    code: 'FROM sales SELECT region, amount WHERE amount > 0',
    references: ['sales'],
  },
  {
    name: 'filter and rename',
    aliases: ['CurrentTable'],
    code: `SELECT order_id AS id, lower(trim(email)) AS email, CAST(amount AS DECIMAL(12, 2)) AS amount
FROM CurrentTable
WHERE status IN ('paid', 'shipped') AND amount IS NOT NULL`,
    references: ['CurrentTable'],
  },
  {
    name: 'group by with having',
    aliases: ['orders'],
    code: 'SELECT customer_id, count(*) AS n, sum(total) AS revenue FROM orders GROUP BY customer_id HAVING count(*) > 2 ORDER BY revenue DESC LIMIT 100',
    references: ['orders'],
  },
  {
    name: 'GROUP BY ALL',
    aliases: ['orders'],
    code: "SELECT country, date_trunc('month', ordered_at) AS month, avg(total) FROM orders GROUP BY ALL",
    references: ['orders'],
  },
  {
    name: 'inner join with aliases',
    aliases: ['orders', 'customers'],
    code: 'SELECT o.id, c.name, o.total FROM orders AS o INNER JOIN customers AS c ON c.id = o.customer_id',
    references: ['orders', 'customers'],
  },
  {
    name: 'left join using',
    aliases: ['orders', 'refunds'],
    code: 'SELECT o.*, coalesce(r.amount, 0) AS refunded FROM orders o LEFT JOIN refunds r USING (order_id)',
    references: ['orders', 'refunds'],
  },
  {
    name: 'three-way join',
    aliases: ['orders', 'customers', 'products'],
    code: `SELECT c.name, p.title, o.quantity * p.price AS line_total
FROM orders o
JOIN customers c ON c.id = o.customer_id
JOIN products p ON p.sku = o.sku`,
    references: ['orders', 'customers', 'products'],
  },
  {
    name: 'self join',
    aliases: ['employees'],
    code: 'SELECT e.name, m.name AS manager FROM employees e LEFT JOIN employees m ON m.id = e.manager_id',
    references: ['employees'],
  },
  {
    name: 'full outer join',
    aliases: ['budget', 'actuals'],
    code: 'SELECT coalesce(b.cost_center, a.cost_center) AS cost_center, b.amount AS planned, a.amount AS spent FROM budget b FULL OUTER JOIN actuals a ON a.cost_center = b.cost_center',
    references: ['budget', 'actuals'],
  },
  {
    name: 'ASOF join',
    aliases: ['trades', 'quotes'],
    code: 'SELECT t.*, q.bid, q.ask FROM trades t ASOF JOIN quotes q ON t.symbol = q.symbol AND t.ts >= q.ts',
    references: ['trades', 'quotes'],
  },
  {
    name: 'positional join',
    aliases: ['left_part', 'right_part'],
    code: 'SELECT * FROM left_part POSITIONAL JOIN right_part',
    references: ['left_part', 'right_part'],
  },
  {
    name: 'anti and semi joins',
    aliases: ['customers', 'orders', 'blocked'],
    code: 'SELECT * FROM customers c SEMI JOIN orders o ON o.customer_id = c.id ANTI JOIN blocked b ON b.customer_id = c.id',
    references: ['customers', 'orders', 'blocked'],
  },
  {
    name: 'CTE chain',
    aliases: ['events'],
    code: `WITH clean AS (SELECT * FROM events WHERE user_id IS NOT NULL),
     daily AS (SELECT user_id, CAST(ts AS DATE) AS day, count(*) AS n FROM clean GROUP BY ALL)
SELECT day, count(DISTINCT user_id) AS dau, sum(n) AS events FROM daily GROUP BY day ORDER BY day`,
    references: ['events'],
    ctes: ['clean', 'daily'],
  },
  {
    name: 'CTE shadowing its alias',
    aliases: ['orders'],
    code: 'WITH orders AS (SELECT * FROM orders WHERE NOT is_test) SELECT count(*) FROM orders',
    references: ['orders'],
    ctes: ['orders'],
  },
  {
    name: 'materialized CTE',
    aliases: ['metrics'],
    code: 'WITH m AS MATERIALIZED (SELECT * FROM metrics WHERE value > 0) SELECT a.id, b.id FROM m a JOIN m b ON a.parent = b.id',
    references: ['metrics'],
    ctes: ['m'],
  },
  {
    name: 'recursive CTE over a hierarchy',
    aliases: ['categories'],
    code: `WITH RECURSIVE tree(id, name, depth) AS (
  SELECT id, name, 0 FROM categories WHERE parent_id IS NULL
  UNION ALL
  SELECT c.id, c.name, t.depth + 1 FROM categories c JOIN tree t ON c.parent_id = t.id
)
SELECT * FROM tree ORDER BY depth, name`,
    references: ['categories'],
    ctes: ['tree'],
  },
  {
    name: 'window functions',
    aliases: ['sales'],
    code: `SELECT region, month, amount,
  sum(amount) OVER (PARTITION BY region ORDER BY month ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running,
  lag(amount, 1, 0) OVER (PARTITION BY region ORDER BY month) AS previous,
  rank() OVER (PARTITION BY month ORDER BY amount DESC) AS position
FROM sales`,
    references: ['sales'],
  },
  {
    name: 'named window',
    aliases: ['prices'],
    code: 'SELECT symbol, ts, avg(price) OVER w AS moving_avg, min(price) OVER w AS low FROM prices WINDOW w AS (PARTITION BY symbol ORDER BY ts RANGE BETWEEN INTERVAL 7 DAYS PRECEDING AND CURRENT ROW)',
    references: ['prices'],
  },
  {
    name: 'QUALIFY latest row per key',
    aliases: ['snapshots'],
    code: 'SELECT * FROM snapshots QUALIFY row_number() OVER (PARTITION BY entity_id ORDER BY captured_at DESC) = 1',
    references: ['snapshots'],
  },
  {
    name: 'PIVOT in FROM',
    aliases: ['sales'],
    code: "SELECT * FROM sales PIVOT (sum(amount) FOR quarter IN ('Q1', 'Q2', 'Q3', 'Q4') GROUP BY region)",
    references: ['sales'],
  },
  {
    name: 'simplified PIVOT with IN list',
    aliases: ['sales'],
    code: "PIVOT sales ON quarter IN ('Q1', 'Q2') USING sum(amount) GROUP BY region",
    references: ['sales'],
  },
  {
    name: 'UNPIVOT',
    aliases: ['wide'],
    code: 'SELECT * FROM wide UNPIVOT (value FOR metric IN (clicks, views, conversions))',
    references: ['wide'],
  },
  {
    name: 'UNNEST a list column',
    aliases: ['articles'],
    code: 'SELECT id, unnest(tags) AS tag FROM articles WHERE len(tags) > 0',
    references: ['articles'],
  },
  {
    name: 'UNNEST in FROM, lateral',
    aliases: ['orders'],
    code: 'SELECT o.id, item.sku, item.qty FROM orders o, unnest(o.items) AS t(item)',
    references: ['orders'],
  },
  {
    name: 'nested subqueries',
    aliases: ['orders', 'customers'],
    code: `SELECT * FROM (
  SELECT customer_id, total FROM (
    SELECT * FROM orders WHERE total > (SELECT avg(total) FROM orders)
  ) big
) x
WHERE customer_id IN (SELECT id FROM customers WHERE country = 'FR')`,
    references: ['orders', 'customers'],
  },
  {
    name: 'correlated EXISTS',
    aliases: ['customers', 'orders'],
    code: 'SELECT c.* FROM customers c WHERE EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id AND o.total > 100)',
    references: ['customers', 'orders'],
  },
  {
    name: 'scalar subquery in the select list',
    aliases: ['products', 'reviews'],
    code: 'SELECT p.sku, (SELECT avg(stars) FROM reviews r WHERE r.sku = p.sku) AS rating FROM products p',
    references: ['products', 'reviews'],
  },
  {
    name: 'LATERAL subquery',
    aliases: ['customers', 'orders'],
    code: 'SELECT c.id, last.total FROM customers c, LATERAL (SELECT total FROM orders o WHERE o.customer_id = c.id ORDER BY o.ts DESC LIMIT 1) last',
    references: ['customers', 'orders'],
  },
  {
    name: 'UNION ALL of two sources',
    aliases: ['shop_eu', 'shop_us'],
    code: "SELECT 'eu' AS shop, * FROM shop_eu UNION ALL SELECT 'us' AS shop, * FROM shop_us",
    references: ['shop_eu', 'shop_us'],
  },
  {
    name: 'UNION BY NAME',
    aliases: ['v1', 'v2'],
    code: 'SELECT * FROM v1 UNION ALL BY NAME SELECT * FROM v2',
    references: ['v1', 'v2'],
  },
  {
    name: 'INTERSECT and EXCEPT set operations',
    aliases: ['a_list', 'b_list', 'c_list'],
    code: '(SELECT email FROM a_list INTERSECT SELECT email FROM b_list) EXCEPT SELECT email FROM c_list',
    references: ['a_list', 'b_list', 'c_list'],
  },
  {
    name: 'quoted identifiers with spaces',
    aliases: ['CurrentTable'],
    code: 'SELECT "Customer Name" AS customer, "Order Total (EUR)" AS total, "select" AS keyword_column FROM "CurrentTable" WHERE "Order Total (EUR)" > 0',
    references: ['CurrentTable'],
  },
  {
    name: 'comments everywhere',
    aliases: ['orders', 'customers'],
    code: `-- monthly revenue per customer; FROM secret_table in a comment is not a reference
SELECT /* the id */ c.id, -- and the total
  sum(o.total) AS revenue
FROM orders o /* joined to customers, not to archive.orders */
JOIN customers c ON c.id = o.customer_id
GROUP BY c.id -- trailing`,
    references: ['orders', 'customers'],
  },
  {
    name: 'string literals that look like table names',
    aliases: ['logs'],
    code: "SELECT 'FROM users' AS a, 'SELECT * FROM passwords' AS b, 'read_csv(''/etc/passwd'')' AS c, message FROM logs WHERE message NOT LIKE '%JOIN admins%'",
    references: ['logs'],
  },
  {
    name: 'dollar-quoted string',
    aliases: ['notes'],
    code: 'SELECT $$it is FROM other_table$$ AS text, body FROM notes',
    references: ['notes'],
  },
  {
    name: 'CASE and COALESCE cleaning',
    aliases: ['CurrentTable'],
    code: `SELECT id,
  CASE WHEN age < 18 THEN 'minor' WHEN age < 65 THEN 'adult' ELSE 'senior' END AS age_band,
  coalesce(nullif(trim(city), ''), 'unknown') AS city,
  try_cast(zip AS INTEGER) AS zip
FROM CurrentTable`,
    references: ['CurrentTable'],
  },
  {
    name: 'string and regex functions',
    aliases: ['contacts'],
    code: "SELECT regexp_replace(phone, '[^0-9]', '', 'g') AS phone, split_part(email, '@', 2) AS domain, concat_ws(' ', first, last) AS name, strip_accents(city) AS city FROM contacts",
    references: ['contacts'],
  },
  {
    name: 'dates with intervals and strftime',
    aliases: ['visits'],
    code: "SELECT strftime(visited_at, '%Y-%m') AS month, visited_at + INTERVAL 1 DAY AS next_day, date_diff('day', first_seen, visited_at) AS days, EXTRACT(dow FROM visited_at) AS dow FROM visits",
    references: ['visits'],
  },
  {
    name: 'lambdas and list comprehension',
    aliases: ['baskets'],
    code: 'SELECT list_transform(prices, x -> x * 1.2) AS gross, list_filter(items, lambda i: i.qty > 0) AS items, [p * 2 FOR p IN prices IF p > 10] AS doubled FROM baskets',
    references: ['baskets'],
  },
  {
    name: 'structs, maps and JSON',
    aliases: ['payloads'],
    code: "SELECT body->>'$.user.id' AS user_id, json_extract(body, '$.items') AS items, {'a': 1, 'b': meta.source} AS s, MAP {'k': 1}['k'] AS v FROM payloads",
    references: ['payloads'],
  },
  {
    name: 'COLUMNS expression and EXCLUDE',
    aliases: ['measures'],
    code: "SELECT min(COLUMNS('amount_.*')), max(COLUMNS(* EXCLUDE (id, label))) FROM measures",
    references: ['measures'],
  },
  {
    name: 'REPLACE star',
    aliases: ['CurrentTable'],
    code: 'SELECT * REPLACE (upper(code) AS code, round(price, 2) AS price) FROM CurrentTable',
    references: ['CurrentTable'],
  },
  {
    name: 'GROUPING SETS and ROLLUP',
    aliases: ['sales'],
    code: 'SELECT region, product, sum(amount), GROUPING(region, product) AS level FROM sales GROUP BY ROLLUP (region, product)',
    references: ['sales'],
  },
  {
    name: 'FILTER clause and ordered aggregates',
    aliases: ['tickets'],
    code: "SELECT team, count(*) FILTER (WHERE status = 'open') AS open, string_agg(title, ', ' ORDER BY created_at) AS titles, quantile_cont(hours, 0.9) AS p90 FROM tickets GROUP BY team",
    references: ['tickets'],
  },
  {
    name: 'VALUES joined to a source',
    aliases: ['orders'],
    code: "SELECT o.*, m.label FROM orders o JOIN (VALUES ('A', 'alpha'), ('B', 'beta')) AS m(code, label) ON m.code = o.code",
    references: ['orders'],
  },
  {
    name: 'generate_series calendar',
    aliases: ['bookings'],
    code: "SELECT d.day, count(b.id) AS bookings FROM generate_series(DATE '2024-01-01', DATE '2024-12-31', INTERVAL 1 DAY) AS d(day) LEFT JOIN bookings b ON CAST(b.start AS DATE) = d.day GROUP BY d.day",
    references: ['bookings'],
  },
  {
    name: 'deduplicate with DISTINCT ON',
    aliases: ['CurrentTable'],
    code: 'SELECT DISTINCT ON (email) * FROM CurrentTable ORDER BY email, updated_at DESC',
    references: ['CurrentTable'],
  },
  {
    name: 'sample with a seed',
    aliases: ['events'],
    code: 'SELECT * FROM events USING SAMPLE 10% (bernoulli, 42)',
    references: ['events'],
  },
  {
    name: 'alias case differs from the declaration',
    aliases: ['Orders', 'CUSTOMERS'],
    code: 'SELECT * FROM orders JOIN customers USING (customer_id)',
    references: ['Orders', 'CUSTOMERS'],
  },
  {
    name: 'CTE referenced in a subquery and a join',
    aliases: ['orders', 'returns'],
    code: `WITH r AS (SELECT order_id, sum(amount) AS returned FROM returns GROUP BY ALL)
SELECT o.id, o.total - coalesce(r.returned, 0) AS net FROM orders o LEFT JOIN r ON r.order_id = o.id
WHERE o.id NOT IN (SELECT order_id FROM r WHERE returned >= o.total)`,
    references: ['orders', 'returns'],
    ctes: ['r'],
  },
  {
    name: 'subquery-local CTE',
    aliases: ['logs'],
    code: "SELECT * FROM (WITH errors AS (SELECT * FROM logs WHERE level = 'error') SELECT service, count(*) FROM errors GROUP BY ALL) t",
    references: ['logs'],
    ctes: ['errors'],
  },
];

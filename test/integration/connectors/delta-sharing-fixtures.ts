/**
 * Shared tables of the Delta Sharing tests: a partitioned table with two versions, plain
 * tables in two shares, and a table with deletion vectors the import cannot apply.
 */
import type { FakeTableSpec } from '../../../infra/local/fakes/delta-sharing';

const ORDER_FIELDS = [
  { name: 'id', type: 'long' },
  { name: 'amount', type: 'decimal(10,2)' },
  { name: 'placed_at', type: 'timestamp' },
  { name: 'region', type: 'string' },
  { name: 'order_date', type: 'date' },
];

/** Rows `from`..`to` of the orders table, without its partition columns. */
const orders = (from: number, to: number) =>
  `SELECT i::BIGINT AS id, (i * 1.25)::DECIMAL(10,2) AS amount, TIMESTAMPTZ '2024-03-01 08:00:00+00' + to_minutes(i) AS placed_at FROM range(${from}, ${to}) t(i)`;

export const DELTA_TABLES: readonly FakeTableSpec[] = [
  {
    share: 'partner',
    schema: 'retail',
    name: 'orders',
    fields: ORDER_FIELDS,
    partitionColumns: ['region', 'order_date'],
    versions: [
      [{ partitionValues: { region: 'north', order_date: '2024-03-01' }, sql: orders(1, 4) }],
      [
        { partitionValues: { region: 'north', order_date: '2024-03-01' }, sql: orders(1, 4) },
        { partitionValues: { region: 'south', order_date: '2024-03-02' }, sql: orders(4, 6) },
        { partitionValues: { region: '', order_date: '2024-03-02' }, sql: orders(6, 7) },
      ],
    ],
  },
  {
    share: 'partner',
    schema: 'retail',
    name: 'customers',
    fields: [
      { name: 'id', type: 'long' },
      { name: 'name', type: 'string' },
      { name: 'tags', type: { type: 'array', elementType: 'string', containsNull: true } },
    ],
    versions: [[{ sql: "SELECT 1::BIGINT AS id, 'Ada' AS name, ['vip'] AS tags" }]],
  },
  {
    share: 'partner',
    schema: 'retail',
    name: 'returns',
    fields: [{ name: 'id', type: 'long' }],
    readerFeatures: ['deletionVectors'],
    versions: [[{ sql: 'SELECT 1::BIGINT AS id' }]],
  },
  {
    share: 'partner',
    schema: 'wholesale',
    name: 'stock',
    fields: [{ name: 'sku', type: 'string' }],
    versions: [[{ sql: "SELECT 'A-1' AS sku" }]],
  },
  {
    share: 'research',
    schema: 'lab',
    name: 'samples',
    fields: [{ name: 'value', type: 'double' }],
    versions: [[{ sql: 'SELECT 0.5::DOUBLE AS value' }]],
  },
];

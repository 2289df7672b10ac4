/**
 * The Delta Sharing server `npm start` runs beside the demo bucket, so the README's walkthrough
 * has a share to connect to: the protocol fake the tests use too (fakes/delta-sharing.ts),
 * serving one small partitioned table.
 */
import { startDeltaSharingFake, type DeltaSharingFake, type FakeTableSpec } from './fakes/delta-sharing';

/** The bearer token the demo server accepts; the banner prints it for the profile. */
export const DEMO_SHARING_TOKEN = 'demo-sharing-token';

/** share.schema.table → its rows, as the banner lists them. */
const DEMO_SHARED_TABLES: readonly FakeTableSpec[] = [
  {
    share: 'demo',
    schema: 'sales',
    name: 'orders',
    fields: [
      { name: 'order_id', type: 'long' },
      { name: 'amount', type: 'double' },
      { name: 'region', type: 'string' },
    ],
    partitionColumns: ['region'],
    versions: [
      [
        { partitionValues: { region: 'north' }, sql: 'SELECT 1::BIGINT AS order_id, 120.5::DOUBLE AS amount' },
        { partitionValues: { region: 'south' }, sql: 'SELECT 2::BIGINT AS order_id, 80.0::DOUBLE AS amount' },
      ],
    ],
  },
];

/** The demo tables as share.schema.table, for the banner. */
export const DEMO_SHARED_TABLE_NAMES = DEMO_SHARED_TABLES.map(
  ({ share, schema, name }) => `${share}.${schema}.${name}`,
);

/** Starts the demo sharing server on `port` (0: a free one), accepting DEMO_SHARING_TOKEN. */
export async function startDeltaSharingDemo(port: number): Promise<DeltaSharingFake> {
  const server = await startDeltaSharingFake({ tables: DEMO_SHARED_TABLES, port });
  server.addToken(DEMO_SHARING_TOKEN);
  return server;
}

/**
 * The Snowflake account and identity provider the warehouse tests talk to: a Snowflake fake
 * and an OAuth fake on 127.0.0.1 (the driver names the account by the host's first label,
 * "127"), their users, warehouses and tables, and connection requests that point at them.
 */
import { startOAuthFake, type OAuthFake } from '../../../infra/local/fakes/oauth';
import { startSnowflakeFake, tableOf, type FakeTable, type SnowflakeFake } from '../../fakes/snowflake';

export const LOADER = { username: 'loader', password: 'loader-pw:1' };
export const NO_DEFAULTS = { username: 'analyst', password: 'analyst-pw:2' };
export const OAUTH_CLIENT = {
  clientId: 'dps-warehouse',
  clientSecret: 'client-secret:3',
  scopes: ['session:role:LOADER'],
};
export const OAUTH_USER = 'SERVICE';

const DAY = 86_400;
const jan = (day: number) => String(Math.floor(Date.UTC(2024, 0, day) / 1000 / DAY));

/** SALES.PUBLIC.ORDERS as Snowflake's JSON rowset carries it: every value a string. */
export const ORDERS: FakeTable = tableOf(
  [
    { name: 'ID', type: 'fixed', precision: 38, scale: 0, nullable: false },
    { name: 'CUSTOMER', type: 'text' },
    { name: 'AMOUNT', type: 'fixed', precision: 10, scale: 2 },
    { name: 'ORDERED_ON', type: 'date' },
    { name: 'SHIPPED', type: 'boolean' },
    { name: 'NOTE', type: 'text' },
    { name: 'CREATED_AT', type: 'timestamp_ntz', scale: 9 },
  ],
  [
    ['1', 'acme', '12.50', jan(1), '1', null, '1704103200.123456000'],
    ['2', 'Globex, "the" company', '7.05', jan(2), '0', '', '1704189600.000000000'],
    ['3', 'initech', '100.00', jan(3), '1', 'multi\nline', '1704276000.500000000'],
  ],
);

/** The rows of ORDERS as the preview shows them. */
export const ORDERS_PREVIEW = [
  {
    ID: 1,
    CUSTOMER: 'acme',
    AMOUNT: 12.5,
    ORDERED_ON: '2024-01-01',
    SHIPPED: true,
    NOTE: null,
    CREATED_AT: '2024-01-01T10:00:00.123456',
  },
  {
    ID: 2,
    CUSTOMER: 'Globex, "the" company',
    AMOUNT: 7.05,
    ORDERED_ON: '2024-01-02',
    SHIPPED: false,
    NOTE: '',
    CREATED_AT: '2024-01-02T10:00:00',
  },
  {
    ID: 3,
    CUSTOMER: 'initech',
    AMOUNT: 100,
    ORDERED_ON: '2024-01-03',
    SHIPPED: true,
    NOTE: 'multi\nline',
    CREATED_AT: '2024-01-03T10:00:00.5',
  },
];

/** SALES.PUBLIC.EVENTS: many rows, made on demand, so the result comes in several chunks. */
export const EVENT_COUNT = 2_500;
export const EVENTS: FakeTable = {
  columns: [
    { name: 'SEQ', type: 'fixed', precision: 38, scale: 0 },
    { name: 'KIND', type: 'text' },
  ],
  rowCount: EVENT_COUNT,
  row: (index) => [String(index + 1), index % 3 === 0 ? 'click' : 'view'],
};

export interface WarehouseWorld {
  readonly snowflake: SnowflakeFake;
  readonly idp: OAuthFake;
  /** OUTBOUND_ALLOW_LIST entries for both fakes. */
  readonly allowOutbound: string[];
  close(): Promise<void>;
}

export async function startWarehouseWorld(options: { runningPolls?: number } = {}): Promise<WarehouseWorld> {
  const idp = await startOAuthFake({ clients: [OAUTH_CLIENT] });
  const snowflake = await startSnowflakeFake({
    account: '127',
    users: [
      {
        name: LOADER.username,
        password: LOADER.password,
        defaultWarehouse: 'COMPUTE_WH',
        defaultDatabase: 'SALES',
        defaultSchema: 'PUBLIC',
        defaultRole: 'LOADER',
      },
      { name: NO_DEFAULTS.username, password: NO_DEFAULTS.password },
      {
        name: OAUTH_USER,
        password: 'not used',
        defaultWarehouse: 'COMPUTE_WH',
        defaultDatabase: 'SALES',
        defaultSchema: 'PUBLIC',
      },
    ],
    oauthUser: (token) => (idp.isIssued(token) ? OAUTH_USER : undefined),
    warehouses: ['COMPUTE_WH', 'REPORTING_WH'],
    catalog: { SALES: { PUBLIC: { ORDERS, EVENTS }, STAGING: {} } },
    inlineRows: 100,
    chunkRows: 1000,
    runningPolls: options.runningPolls,
  });
  return {
    snowflake,
    idp,
    allowOutbound: [`127.0.0.1:${snowflake.port}`, `127.0.0.1:${idp.port}`],
    async close() {
      await Promise.all([snowflake.close(), idp.close()]);
    },
  };
}

/** A password connection request to the fake account; `settings` are database, schema, warehouse. */
export function passwordConnection(
  world: WarehouseWorld,
  user = LOADER,
  settings: { database?: string; schema?: string; warehouse?: string } = {},
) {
  return {
    type: 'warehouse' as const,
    auth: {
      auth_type: 'password' as const,
      username: user.username,
      password: user.password,
      host: world.snowflake.url,
    },
    ...settings,
  };
}

/** An OAuth client-credentials connection request through the fake identity provider. */
export function oauthConnection(
  world: WarehouseWorld,
  client: { clientId?: string; clientSecret?: string; scope?: string } = {},
) {
  return {
    type: 'warehouse' as const,
    auth: {
      auth_type: 'oauth_client_credentials' as const,
      token_url: world.idp.tokenUrl,
      client_id: client.clientId ?? OAUTH_CLIENT.clientId,
      client_secret: client.clientSecret ?? OAUTH_CLIENT.clientSecret,
      scope: client.scope ?? 'session:role:LOADER',
      host: world.snowflake.url,
    },
  };
}

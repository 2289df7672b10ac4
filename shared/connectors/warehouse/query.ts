import { config } from '../../config';
import { withWarehouseSession, type WarehouseTarget } from './client';

/**
 * Tests a source query on the warehouse: Snowflake compiles it without running it
 * (describeOnly), so its syntax (30-1008) and every object and column it names (30-1010) are
 * checked against the account, and nothing runs or is billed. The caller has already made the
 * local check (one read-only statement, 30-1009).
 */
export async function testWarehouseQuery(target: WarehouseTarget, query: string): Promise<void> {
  await withWarehouseSession(target, { timeoutMs: config.connectorTimeoutMs }, (session) =>
    session.execute(query, { describeOnly: true }),
  );
}

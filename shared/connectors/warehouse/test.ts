import { config } from '../../config';
import { AppError } from '../../errors/app-error';
import { withWarehouseSession, type WarehouseTarget } from './client';

/**
 * The session's context, read without compute: Snowflake answers these functions from its
 * cloud services, so no warehouse has to run (or be billed) for a connection test.
 */
const SESSION_CONTEXT = 'SELECT CURRENT_WAREHOUSE(), CURRENT_DATABASE(), CURRENT_SCHEMA()';

/**
 * Tests a warehouse configuration for real: logs in (an OAuth token first, for client
 * credentials) and reads the session's warehouse, database and schema. Snowflake accepts a
 * login that names a warehouse, database or schema it does not have (the session then has
 * none), so each one the connection names must be the session's: otherwise it is 30-1010
 * naming it. With no warehouse named and no default for the user, queries could not run:
 * 30-1013.
 */
export async function testWarehouse(target: WarehouseTarget): Promise<void> {
  const [row] = await withWarehouseSession(target, { timeoutMs: config.connectorTimeoutMs }, async (session) =>
    session.rows(await session.execute(SESSION_CONTEXT)),
  );
  const [warehouse, database, schema] = (row ?? []).map((value) => (typeof value === 'string' ? value : null));
  if (target.warehouse && !warehouse) throw new AppError('30-1010', { params: [target.warehouse] });
  if (!warehouse) throw new AppError('30-1013');
  if (target.database && !database) throw new AppError('30-1010', { params: [target.database] });
  if (target.schema && !schema)
    throw new AppError('30-1010', {
      params: target.database ? [`${target.database}.${target.schema}`] : [target.schema],
    });
}

/**
 * The list and get handlers of the declared transfer entity (shared/transfers/entity.ts), one
 * export each ('transfers/entity#list', shared/http/handler-ref.ts); both need the tenant's
 * `transfers` feature (10-1501). Transfers are started, not updated.
 */
import { requireFeature } from '../../shared/features/store';
import { getHandler, listHandler, type ReadOptions } from '../../shared/http/entity-handlers';
import { transfers } from '../../shared/transfers/entity';
import { transferRoutes } from './routes';

const featureOn: ReadOptions = { before: (caller) => requireFeature(caller.tenantId, 'transfers') };

export const list = listHandler(transferRoutes.list, transfers, featureOn);
export const get = getHandler(transferRoutes.get, transfers, featureOn);

/**
 * The full update (PUT) and merge (PATCH) handlers of a connection ('connections/update#update',
 * 'connections/update#merge'): both check the configuration the update makes, which the list
 * and get functions (entity.ts) leave out of their bundles.
 */
import { updatableConnections } from '../../shared/connections/update';
import { mergeHandler, updateHandler } from '../../shared/http/entity-handlers';
import { connectionRoutes } from './routes';

export const update = updateHandler(connectionRoutes.update, updatableConnections);
export const merge = mergeHandler(connectionRoutes.merge, updatableConnections);

/**
 * The list and get handlers of the declared connection entity (shared/connections/store.ts),
 * one export each ('connections/entity#list', shared/http/handler-ref.ts). Its update and merge
 * are in update.ts: what an update checks is heavy, and these two bundles leave it out.
 */
import { connections } from '../../shared/connections/store';
import { getHandler, listHandler } from '../../shared/http/entity-handlers';
import { connectionRoutes } from './routes';

export const list = listHandler(connectionRoutes.list, connections);
export const get = getHandler(connectionRoutes.get, connections);

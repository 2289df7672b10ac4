/**
 * The list, get, update and merge handlers of the declared entity (shared/data-sources/store.ts), one
 * export each; the route table names them 'data-sources/entity#list' and so on (shared/http/handler-ref.ts).
 * Each is still its own function with its own access; they deploy the same bundle.
 */
import { dataSources } from '../../shared/data-sources/store';
import { getHandler, listHandler, mergeHandler, updateHandler } from '../../shared/http/entity-handlers';
import { dataSourceRoutes } from './routes';

export const list = listHandler(dataSourceRoutes.list, dataSources);
export const get = getHandler(dataSourceRoutes.get, dataSources);
export const update = updateHandler(dataSourceRoutes.update, dataSources);
export const merge = mergeHandler(dataSourceRoutes.merge, dataSources);

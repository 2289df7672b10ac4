/**
 * The list, get, update and merge handlers of the declared entity (shared/targets/store.ts), one
 * export each; the route table names them 'targets/entity#list' and so on (shared/http/handler-ref.ts).
 * Each is still its own function with its own access; they deploy the same bundle.
 */
import { targets } from '../../shared/targets/store';
import { getHandler, listHandler, mergeHandler, updateHandler } from '../../shared/http/entity-handlers';
import { targetRoutes } from './routes';

export const list = listHandler(targetRoutes.list, targets);
export const get = getHandler(targetRoutes.get, targets);
export const update = updateHandler(targetRoutes.update, targets);
export const merge = mergeHandler(targetRoutes.merge, targets);

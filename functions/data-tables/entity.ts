/**
 * The list, get and update handlers of the declared data table entity (shared/data-tables/entity.ts),
 * one export each ('data-tables/entity#list', shared/http/handler-ref.ts). Data tables have no merge route.
 */
import { dataTables } from '../../shared/data-tables/entity';
import { getHandler, listHandler, updateHandler } from '../../shared/http/entity-handlers';
import { dataTableRoutes } from './routes';

export const list = listHandler(dataTableRoutes.list, dataTables);
export const get = getHandler(dataTableRoutes.get, dataTables);
export const update = updateHandler(dataTableRoutes.update, dataTables);

/**
 * The list, get, update and merge handlers of the declared dataset entity (shared/datasets/entity.ts),
 * one export each ('datasets/entity#list', shared/http/handler-ref.ts).
 */
import { datasets } from '../../shared/datasets/entity';
import { getHandler, listHandler, mergeHandler, updateHandler } from '../../shared/http/entity-handlers';
import { datasetRoutes } from './routes';

export const list = listHandler(datasetRoutes.list, datasets);
export const get = getHandler(datasetRoutes.get, datasets);
export const update = updateHandler(datasetRoutes.update, datasets);
export const merge = mergeHandler(datasetRoutes.merge, datasets);

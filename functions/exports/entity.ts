/**
 * The list and get handlers of the declared export entity (shared/exports/entity.ts), one export
 * each ('exports/entity#list', shared/http/handler-ref.ts). Exports are started, not updated.
 */
import { targetExports } from '../../shared/exports/entity';
import { getHandler, listHandler } from '../../shared/http/entity-handlers';
import { exportRoutes } from './routes';

export const list = listHandler(exportRoutes.list, targetExports);
export const get = getHandler(exportRoutes.get, targetExports);

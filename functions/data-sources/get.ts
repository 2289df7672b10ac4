import { dataSources } from '../../shared/data-sources/store';
import { getHandler } from '../../shared/http/entity-handlers';
import { dataSourceRoutes } from './routes';

export const handler = getHandler(dataSourceRoutes.get, dataSources);

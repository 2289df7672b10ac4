import { dataSources } from '../../shared/data-sources/store';
import { listHandler } from '../../shared/http/entity-handlers';
import { dataSourceRoutes } from './routes';

export const handler = listHandler(dataSourceRoutes.list, dataSources);

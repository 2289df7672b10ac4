import { dataSources } from '../../shared/data-sources/store';
import { updateHandler } from '../../shared/http/entity-handlers';
import { dataSourceRoutes } from './routes';

export const handler = updateHandler(dataSourceRoutes.update, dataSources);

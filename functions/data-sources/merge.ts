import { dataSources } from '../../shared/data-sources/store';
import { mergeHandler } from '../../shared/http/entity-handlers';
import { dataSourceRoutes } from './routes';

export const handler = mergeHandler(dataSourceRoutes.merge, dataSources);

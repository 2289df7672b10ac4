import { connections } from '../../shared/connections/store';
import { listHandler } from '../../shared/http/entity-handlers';
import { connectionRoutes } from './routes';

export const handler = listHandler(connectionRoutes.list, connections);

import { connections } from '../../shared/connections/store';
import { getHandler } from '../../shared/http/entity-handlers';
import { connectionRoutes } from './routes';

export const handler = getHandler(connectionRoutes.get, connections);

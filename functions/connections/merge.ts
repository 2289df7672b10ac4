import { updatableConnections } from '../../shared/connections/update';
import { mergeHandler } from '../../shared/http/entity-handlers';
import { connectionRoutes } from './routes';

export const handler = mergeHandler(connectionRoutes.merge, updatableConnections);

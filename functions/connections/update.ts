import { updatableConnections } from '../../shared/connections/update';
import { updateHandler } from '../../shared/http/entity-handlers';
import { connectionRoutes } from './routes';

export const handler = updateHandler(connectionRoutes.update, updatableConnections);

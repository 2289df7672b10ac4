import { getHandler } from '../../shared/http/entity-handlers';
import { targets } from '../../shared/targets/store';
import { targetRoutes } from './routes';

export const handler = getHandler(targetRoutes.get, targets);

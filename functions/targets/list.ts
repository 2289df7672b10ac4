import { listHandler } from '../../shared/http/entity-handlers';
import { targets } from '../../shared/targets/store';
import { targetRoutes } from './routes';

export const handler = listHandler(targetRoutes.list, targets);

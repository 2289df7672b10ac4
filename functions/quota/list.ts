import { listHandler } from '../../shared/http/entity-handlers';
import { quotaContracts } from '../../shared/quota/store';
import { quotaRoutes } from './routes';

export const handler = listHandler(quotaRoutes.list, quotaContracts);

import { isRoleName, permissionsOf } from '../../shared/auth/permissions';
import { AppError } from '../../shared/errors/app-error';
import { httpHandler } from '../../shared/http/handler';
import { tenantRoutes } from './tenant-routes';

export const handler = httpHandler(tenantRoutes.getRole, async ({ params }) => {
  const name = params.role_name;
  if (!isRoleName(name)) throw new AppError('50-1010', { params: [name] });
  return { body: { name, permissions: permissionsOf([name]) } };
});

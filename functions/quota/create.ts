import { API_BASE_PATH } from '../../shared/config';
import { actorOf } from '../../shared/db/actor';
import { fingerprint } from '../../shared/http/fingerprint';
import { httpHandler } from '../../shared/http/handler';
import { quotaResponse } from '../../shared/quota/response';
import { contractDataOf } from '../../shared/quota/rules';
import { activeContract, createContract, overlapError } from '../../shared/quota/store';
import { quotaRoutes } from './routes';

export const handler = httpHandler(quotaRoutes.create, async ({ body, principal, idempotencyKey }) => {
  const { tenantId } = principal;
  const data = contractDataOf(body);
  // No window: nothing to create. Without a current contract the answer says to give dates (10-7003).
  if (!data) throw overlapError(await activeContract(tenantId));
  const idempotency =
    idempotencyKey === undefined ? undefined : { key: idempotencyKey, fingerprint: fingerprint(body) };
  const { contract, replayed } = await createContract(tenantId, actorOf(principal), data, idempotency);
  return {
    status: 201,
    body: quotaResponse(contract),
    headers: {
      location: `${API_BASE_PATH}/quota/contracts`,
      ...(replayed ? { 'idempotent-replayed': 'true' } : {}),
    },
  };
});

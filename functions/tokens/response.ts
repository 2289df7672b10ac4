import type { ClientRecord } from '../../shared/auth/client-store';
import { roleIdsOf } from '../../shared/identity/clients';
import type { TokenResponse } from '../../shared/model/token';

/** A client as the API shows it: never its secret. */
export function tokenResponse(client: ClientRecord): TokenResponse {
  return {
    client_id: client.client_id,
    description: client.description,
    created_at: client.created_date,
    expires_at: client.expires_at,
    role_ids: [...roleIdsOf(client)],
  };
}

import type { Principal } from '../auth/principal';
import { AppError, isAppError } from '../errors/app-error';
import { createClient, principalOfClient } from '../identity/clients';
import { identityProvider } from '../identity/provider';
import { logger } from '../log';

/**
 * The credentials of an installed app (docs/apps.md): an SDK user, which is an API client of
 * the tenant made through the identity provider, on the code path of POST /tokens. It gets the
 * manifest's roles, and no permission its installer lacks (10-403, as for any token).
 */

/** Prefix of an SDK user's description: the tenant sees it under /tokens. */
const SDK_USER_DESCRIPTION = 'app';

/**
 * Makes the app's SDK user and answers its client id. A refusal of the roles (30-7001,
 * 30-7002, 10-403) is answered as it is; a failure of the identity provider is 80-8026, and a
 * user the provider cannot give back 80-8040. Either way nothing provisioned is left behind.
 */
export async function provision(
  installer: Principal,
  bundleName: string,
  roleNames: readonly string[],
): Promise<string> {
  const { tenantId } = installer;
  let clientId: string | undefined;
  try {
    const issued = await createClient({
      tenantId,
      roleNames,
      description: `${SDK_USER_DESCRIPTION} ${bundleName}`,
      creator: installer,
    });
    clientId = issued.client.client_id;
    const stored = clientId ? await identityProvider().findClient(tenantId, clientId) : undefined;
    if (!stored) throw new AppError('80-8040');
    return stored.client_id;
  } catch (error) {
    if (clientId) await deprovisionQuietly(tenantId, clientId);
    if (isAppError(error) && (error.status < 500 || error.code === '80-8040')) throw error;
    throw new AppError('80-8026', { cause: error });
  }
}

/** Deletes the app's SDK user; gone already is done. A provider failure is thrown (the caller restores). */
export async function deprovision(tenantId: string, clientId: string): Promise<void> {
  await identityProvider().deleteClient(tenantId, clientId);
}

async function deprovisionQuietly(tenantId: string, clientId: string): Promise<void> {
  try {
    await deprovision(tenantId, clientId);
  } catch (error) {
    logger.error('could not delete the SDK user of a rolled back install', {
      tenantId,
      clientId,
      error: error as Error,
    });
  }
}

/** The principal the app acts as: its SDK user with its roles now; 80-8035 when the user is gone. */
export async function sdkPrincipal(tenantId: string, clientId: string | null): Promise<Principal> {
  const client = clientId === null ? undefined : await identityProvider().findClient(tenantId, clientId);
  if (!client) throw new AppError('80-8035');
  return principalOfClient(client);
}

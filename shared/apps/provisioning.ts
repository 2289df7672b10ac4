import type { Principal } from '../auth/principal';
import { AppError, isAppError } from '../errors/app-error';
import { createClient, prepareClient, principalOfClient } from '../identity/clients';
import { identityProvider } from '../identity/provider';
import { logger } from '../log';

/**
 * The credentials of an installed app (docs/apps.md): an SDK user, which is an API client of
 * the tenant made through the identity provider, on the code path of POST /tokens. It gets the
 * manifest's roles, and no permission its installer lacks (10-403, as for any token): checked
 * when the install is asked for, made by the install job (shared/apps/install-job.ts).
 */

/** Prefix of an SDK user's description: the tenant sees it under /tokens. */
const SDK_USER_DESCRIPTION = 'app';

/**
 * Checks, before an install is claimed, that the installer may give the app the manifest's
 * roles: each names one role of the tenant (30-7001, 30-7002) and none carries a permission the
 * installer lacks (10-403). Nothing is written: the install job makes the SDK user.
 */
export async function assertProvisionable(installer: Principal, roleNames: readonly string[]): Promise<void> {
  await prepareClient({ tenantId: installer.tenantId, roleNames, creator: installer });
}

/**
 * Makes the app's SDK user and answers its client id. The install job's id is the create's
 * Idempotency-Key, so a retried job finds the user its earlier attempt made instead of making a
 * second one. A refusal of the roles (30-7001, 30-7002: they changed since the install was
 * asked for) is thrown as it is; a failure of the identity provider is 80-8026, and a user the
 * provider cannot give back 80-8040. Either way nothing provisioned is left behind.
 */
export async function provision(
  tenantId: string,
  jobId: string,
  bundleName: string,
  roleNames: readonly string[],
): Promise<string> {
  let clientId: string | undefined;
  try {
    const issued = await createClient({
      tenantId,
      roleNames,
      description: `${SDK_USER_DESCRIPTION} ${bundleName}`,
      idempotency: { key: jobId, fingerprint: jobId },
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

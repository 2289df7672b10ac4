import { parseDeltaSharingProfile } from '../connectors/delta-sharing/profile';
import { AppError } from '../errors/app-error';
import { open } from '../secrets/envelope';
import { secretContext, type ConnectionData } from './store';

/** The profile version a stored delta-sharing connection shows (its redacted copy), if it has one. */
function storedProfileVersion(data: ConnectionData): unknown {
  if (data.derived.profile_redacted === undefined) return undefined;
  return (JSON.parse(data.derived.profile_redacted) as { shareCredentialsVersion?: unknown }).shareCredentialsVersion;
}

/**
 * A stored connection's secret in clear. A sharing profile's sealed secret and its redacted
 * copy are written together, so a secret of another profile version than the copy shows (the
 * sealed attribute put back from an older copy of the item, say) is refused with 30-3020
 * before it reaches the server; an empty secret is 30-3019.
 */
export async function openConnectionSecret(
  tenantId: string,
  connection: { readonly id: number; readonly data: ConnectionData },
): Promise<string> {
  const secret = await open(connection.data.secret, secretContext(tenantId, connection.id));
  if (connection.data.type !== 'delta_sharing') return secret;
  if (secret.trim() === '') throw new AppError('30-3019');
  const stored = storedProfileVersion(connection.data);
  const { version } = parseDeltaSharingProfile(secret);
  if (stored !== undefined && stored !== version)
    throw new AppError('30-3020', { params: [String(version), String(stored)] });
  return secret;
}

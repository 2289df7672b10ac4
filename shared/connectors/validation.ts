import { GCS_BUCKETS, S3_BUCKETS, parseBucketLocation } from './bucket-location';
import { checkWorkloadIdentity, parseServiceAccountKey } from './cloud/credentials';
import type { ConnectionConfiguration } from './configuration';
import { parseDeltaSharingProfile } from './delta-sharing/profile';
import { serviceHost, serviceUrl } from './endpoint';
import { parseObjectStoreEndpoint } from './object-store/endpoint';
import { checkRsaPrivateKey } from './pricing/private-key';

/** Facts taken from a secret when it is written, kept so reads never need to decrypt. */
export interface DerivedFacts {
  /** Project of a service-account key (not shown, used to match table references). */
  readonly project_id?: string;
  /** The delta-sharing profile with credentials redacted (shown in responses). */
  readonly profile_redacted?: string;
}

const text = (value: string | null | undefined): string => value ?? '';

/**
 * Checks a configuration without calling the external system: URLs and hosts, the outbound
 * guard, bucket paths, and the secret's own format (key JSON, PEM key, sharing profile).
 * Runs on create, update, merge and test, so a configuration that cannot work is refused
 * with the same code whenever it is written. When an update keeps the stored secret,
 * `stored` supplies what was derived from it.
 */
export function validateConfiguration(configuration: ConnectionConfiguration, stored: DerivedFacts = {}): DerivedFacts {
  const { auth, secret, settings } = configuration;
  switch (configuration.type) {
    case 'object_store':
      parseObjectStoreEndpoint(text(auth.endpoint));
      if (settings.path_restriction) parseBucketLocation(settings.path_restriction, S3_BUCKETS);
      return {};
    case 'cloud_store':
    case 'analytics_db': {
      if (configuration.type === 'cloud_store' && settings.path_restriction)
        parseBucketLocation(settings.path_restriction, GCS_BUCKETS);
      if (auth.auth_type === 'workload_identity') {
        checkWorkloadIdentity({
          token_url: text(auth.token_url),
          service_account_email: text(auth.service_account_email),
          project_id: text(auth.project_id),
        });
        return {};
      }
      if (secret === undefined) return { project_id: stored.project_id };
      const { projectId } = parseServiceAccountKey(
        secret,
        configuration.type === 'cloud_store' ? '30-1320' : '30-1415',
      );
      return { project_id: projectId };
    }
    case 'warehouse':
      serviceHost(text(auth.host), 'auth.host');
      if (auth.auth_type === 'oauth_client_credentials') serviceUrl(text(auth.token_url), 'auth.token_url');
      return {};
    case 'delta_sharing':
      if (secret === undefined) return { profile_redacted: stored.profile_redacted };
      return { profile_redacted: parseDeltaSharingProfile(secret).redacted };
    case 'pricing_dim':
      serviceUrl(text(auth.token_url), 'auth.token_url');
      serviceHost(text(auth.host), 'auth.host');
      return {};
    case 'pricing_sdk':
      serviceUrl(text(auth.token_url), 'auth.token_url');
      serviceHost(text(auth.host), 'auth.host');
      if (secret !== undefined) checkRsaPrivateKey(secret);
      return {};
  }
}

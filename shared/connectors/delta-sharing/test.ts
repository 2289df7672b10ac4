import { config } from '../../config';
import { DeltaSharingClient } from './client';

/**
 * Tests a delta_sharing configuration for real: the OAuth token exchange when the profile has
 * one, then the listing of the shares the recipient may read (every page), which needs a
 * sharing server at the endpoint that accepts the credential.
 */
export async function testDeltaSharing(profileContent: string): Promise<void> {
  await DeltaSharingClient.of(profileContent, config.connectorTimeoutMs).listShares();
}

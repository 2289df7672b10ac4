import { describe, expect, it } from 'vitest';
import { externalTimeLimitError } from '../../../../shared/connectors/time-limit';

describe('a request that runs out of time waiting on a pricing system', () => {
  it('answers the connector’s own failure code with provider_error timeout', () => {
    expect(externalTimeLimitError('pricing_dim')).toMatchObject({
      code: '30-4007',
      status: 500,
      extraDetails: { provider_error: 'timeout' },
    });
    expect(externalTimeLimitError('pricing_sdk')).toMatchObject({
      code: '30-4100',
      status: 500,
      message: 'Failed to connect to the SDK endpoint (no answer in time)',
      extraDetails: { provider_error: 'timeout' },
    });
  });
});

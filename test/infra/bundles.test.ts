import { describe, expect, it } from 'vitest';
import { AUTHORIZER_HANDLER, FALLBACK_HANDLER, routes } from '../../functions/routes';
import { bundleFunction, forbiddenPackagesIn, MAX_API_BUNDLE_BYTES } from '../../infra/bundling';

/**
 * What every API function carries, bundled as deployed: never the data engine or a warehouse
 * SDK (those belong to job workers), and within the size budget. npm run bench reports the
 * sizes; this test keeps a regression from landing.
 */
const handlers = [...new Set([...routes.map((route) => route.handler), AUTHORIZER_HANDLER, FALLBACK_HANDLER])].sort();

describe('API function bundles', () => {
  it.each(handlers)('%s carries no engine or warehouse SDK and stays under the budget', async (handler) => {
    const { bytes, metafile } = await bundleFunction(`functions/${handler}.ts`);
    expect(forbiddenPackagesIn(metafile)).toEqual([]);
    expect(bytes).toBeLessThanOrEqual(MAX_API_BUNDLE_BYTES);
    // The AWS SDK comes from the Lambda runtime, not the bundle.
    expect(Object.keys(metafile.inputs).some((path) => path.includes('node_modules/@aws-sdk/'))).toBe(false);
  });
});

/**
 * The starting requests of the app operations with a body (test/fuzz/bodies.ts), apart to keep
 * that module small. They name bundle 1, which the fuzzed tenant need not have.
 */
const bundle = { bundle_id: 1 };
const MANIFEST = Buffer.from('{"manifest_version":1}').toString('base64');

export const APP_STARTING_REQUESTS = {
  createAppBundle: () => ({ body: { name: 'fuzzed app', description: 'fuzzed' } }),
  updateAppBundle: () => ({ params: bundle, body: { bundle_id: 1, name: 'fuzzed app', lock_version: 0 } }),
  uploadAppBundleVersion: () => ({
    params: bundle,
    body: { files: [{ path: 'manifest.json', content_type: 'application/json', content_base64: MANIFEST }] },
  }),
  installApp: () => ({ body: { bundle_id: 1 } }),
  putAppLink: () => ({ params: { link_id: 'crm' }, body: { link_id: 'crm', details: { region: 'eu' } } }),
  startAppSession: () => ({ params: bundle, body: { return_to: '/home' } }),
  startAppRun: () => ({ params: bundle, body: { action: 'list-tables' } }),
  putAppValue: () => ({ params: { ...bundle, key: 'fuzzed' }, body: { value: { fuzzed: true } } }),
} as const;

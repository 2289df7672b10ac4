import { readEndpointsFile } from '../local/endpoints-file';
import { DATA_ALIAS } from '../local/kms';

/**
 * Points the service code's SDK clients at the table a script writes: a deployed stage's
 * (TABLE_NAME, with the caller's AWS credentials) or, with `local`, the stack `npm start`
 * runs, found through the endpoints file in its data folder (--data-dir / DATA_DIR, else
 * .local). Calls `fail` with a message and exit code when neither is given.
 */
export function useStack(
  options: { readonly local: boolean; readonly dataDir: string | undefined },
  fail: (message: string, exitCode?: number) => never,
): void {
  if (options.local) {
    const endpoints = readEndpointsFile(options.dataDir ?? process.env.DATA_DIR ?? '.local');
    if ('problem' in endpoints) fail(endpoints.problem, 1);
    // The SDK clients the service code creates read these (shared/aws/clients.ts).
    Object.assign(process.env, {
      AWS_REGION: endpoints.region,
      AWS_ACCESS_KEY_ID: endpoints.accessKeyId,
      AWS_SECRET_ACCESS_KEY: endpoints.secretAccessKey,
      AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamodb,
      AWS_ENDPOINT_URL_S3: endpoints.s3,
      // A tenant created by a script seals its system user's secret with the data key.
      AWS_ENDPOINT_URL_KMS: endpoints.kms,
      DATA_KEY_ID: DATA_ALIAS,
      TABLE_NAME: endpoints.tableName,
      DATA_BUCKET: endpoints.dataBucket,
      // The twin's Node.js is the project's (20); the notice is about AWS, not this stack.
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    });
  } else if (!process.env.TABLE_NAME) {
    fail('TABLE_NAME must name the stage’s table (see the stack outputs); for the stack npm start runs, pass --local');
  }
}

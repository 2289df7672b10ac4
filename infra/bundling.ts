/**
 * How every function is bundled, shared by the CDK stack (NodejsFunction) and the bundle-size
 * benchmark, so what is measured is what is deployed. The AWS SDK v3 is provided by the
 * nodejs22.x runtime and left out of bundles (CDK's default for that runtime).
 */
export const LAMBDA_TARGET = 'node22';

/** Modules the Lambda runtime provides. */
export const EXTERNAL_MODULES = ['@aws-sdk/*'];

/**
 * ESM output needs `require` for the few CommonJS dependencies esbuild leaves as calls,
 * and __dirname/__filename for code that reads them.
 */
export const ESM_BANNER =
  "import { createRequire as __createRequire } from 'node:module'; import { fileURLToPath as __fileURLToPath } from 'node:url'; import { dirname as __pathDirname } from 'node:path'; const require = __createRequire(import.meta.url); const __filename = __fileURLToPath(import.meta.url); const __dirname = __pathDirname(__filename);";

/** Packages an API function must never carry: the engine and warehouse SDKs belong to workers. */
export const FORBIDDEN_IN_API_BUNDLES = ['@duckdb/', 'duckdb', 'snowflake-sdk', '@google-cloud/bigquery', '@google-cloud/storage'];

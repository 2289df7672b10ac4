/**
 * `npm ci` / `npm install` (the root package's postinstall) and `npm run fetch-lambda-layer`:
 * installs the DuckDB layer's linux-arm64 package into node_modules/.cache while the npm
 * registry is at hand, so `npm test` (whose infrastructure tests synthesize the stack) and
 * `npm run synth` need no network afterwards.
 *
 * A failure does not fail the install: npm start and every other test run without the layer.
 * It says what is missing, what needs it, and the command that fetches it later.
 */
import { DUCKDB_BINDING, DUCKDB_PACKAGE, duckDbVersion, installDuckDbForLambda } from './duckdb-layer';

const version = duckDbVersion();
try {
  const installation = installDuckDbForLambda(version);
  process.stdout.write(`Lambda layer ready: ${DUCKDB_PACKAGE} ${version} with ${DUCKDB_BINDING} (${installation})\n`);
} catch (error) {
  process.stderr.write(
    [
      '',
      `WARNING: ${DUCKDB_PACKAGE} ${version} for Lambda (${DUCKDB_BINDING}) could not be fetched:`,
      `  ${error instanceof Error ? error.message : String(error)}`,
      '  npm start and the API tests do not need it; npm run synth and the infrastructure tests do.',
      '  With the npm registry reachable, fetch it with: npm run fetch-lambda-layer',
      '',
    ].join('\n'),
  );
}

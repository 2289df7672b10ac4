/**
 * `npm start`: the whole service on this machine, no AWS account and no network. State is
 * kept under .local/ (git-ignored), so connections and credentials survive a restart.
 *
 *   PORT         HTTP API port (default 3000)
 *   S3_PORT      local S3 port (default 4569)
 *   DATA_DIR     state folder (default .local)
 */
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { LOCAL_S3_CREDENTIALS, type LocalS3 } from './s3';
import { startTwin } from './twin';

const DEMO_BUCKET = 'demo';

function portSetting(name: string, fallback: number): number {
  const raw = process.env[name];
  const port = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`${name} must be a port number, not ${raw}`);
  return port;
}

/** A small CSV in the demo bucket, so the README's walkthrough has something to find. */
async function seedDemoBucket(s3: LocalS3): Promise<void> {
  const client = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: LOCAL_S3_CREDENTIALS });
  await client.send(
    new PutObjectCommand({
      Bucket: DEMO_BUCKET,
      Key: 'sales/2024-01.csv',
      ContentType: 'text/csv',
      Body: 'order_id,region,amount\n1,north,120.50\n2,south,80.00\n3,north,42.25\n',
    }),
  );
  client.destroy();
}

async function main(): Promise<void> {
  process.env.POWERTOOLS_LOG_LEVEL ??= 'INFO';
  const dataDir = process.env.DATA_DIR ?? '.local';
  const twin = await startTwin({
    dataDir,
    port: portSetting('PORT', 3000),
    s3Port: portSetting('S3_PORT', 4569),
    buckets: [DEMO_BUCKET],
  });
  await seedDemoBucket(twin.s3);
  process.stdout.write(
    [
      '',
      'Data Preparation Service — local twin',
      `  API       ${twin.apiUrl}`,
      `  OpenAPI   ${twin.apiUrl}/openapi.json`,
      `  Admin     tenant ${twin.admin.tenant_id}`,
      `            client_id     ${twin.admin.client_id}`,
      `            client_secret ${twin.admin.client_secret}`,
      `  Local S3  ${twin.s3.endpoint}  (access key ${LOCAL_S3_CREDENTIALS.accessKeyId}, secret ${LOCAL_S3_CREDENTIALS.secretAccessKey}, bucket ${DEMO_BUCKET})`,
      `  State is kept in ${dataDir}/. Press Ctrl-C to stop.`,
      '',
      '',
    ].join('\n'),
  );

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`\n${signal}: stopping…\n`);
    twin.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`failed to stop cleanly: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(`local twin failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});

/**
 * The first thing an engine task's container runs (infra/stacks/engine-tasks.ts): the image is
 * AWS's maintained Lambda Node.js base image, pulled through the stage's ECR pull-through cache,
 * which brings the Node.js and the AWS SDK v3 the workers' bundles are built for and nothing of
 * ours. This script fetches the rest, exactly what the Lambda worker runs: the task bundle
 * (functions/jobs/fargate-task.ts, bundled as a worker is) from its S3 asset, and the DuckDB
 * layer's own zip (GetLayerVersionByArn), unpacks them into a folder whose node_modules resolve
 * DuckDB from the layer and the SDK from the image, and imports the bundle.
 *
 * CDK bundles it with esbuild into the container's command (`node --input-type=module -e`), the
 * image's SDK left external; it runs with /var/runtime (the image's SDK) as its working folder.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { inflateRawSync } from 'node:zlib';

/** Where the task's code goes: the task's ephemeral storage. */
const APP = '/tmp/engine-task';
const IMAGE_MODULES = '/var/runtime/node_modules';

/** The variables the task definition sets for this script. */
export const BOOTSTRAP_VARIABLES = {
  bundleBucket: 'TASK_BUNDLE_BUCKET',
  bundleKey: 'TASK_BUNDLE_KEY',
  layerArn: 'DUCKDB_LAYER_ARN',
} as const;

/**
 * Writes the files of a zip archive (stored or deflated entries, as CDK and Lambda make them)
 * under `folder`; an entry whose path leaves the folder is refused.
 */
export function extractZip(zip: Buffer, folder: string): number {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0) throw new Error('not a zip archive: no end of central directory');
  const entries = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  for (let index = 0; index < entries; index += 1) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error(`zip central directory broken at entry ${index}`);
    const method = zip.readUInt16LE(at + 10);
    const compressed = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const skip = nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    at += 46 + skip;
    const path = normalize(join(folder, name));
    if (!path.startsWith(`${normalize(folder)}/`)) throw new Error(`zip entry ${name} leaves its folder`);
    if (name.endsWith('/')) {
      mkdirSync(path, { recursive: true });
      continue;
    }
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(start, start + compressed);
    if (method !== 0 && method !== 8) throw new Error(`zip entry ${name}: compression method ${method}`);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, method === 8 ? inflateRawSync(data) : data);
  }
  return entries;
}

async function download(url: string): Promise<Buffer> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`download failed: ${response.status}`);
  return Buffer.from(await response.arrayBuffer());
}

/** Fetches and unpacks the task's code, then runs it. */
export async function bootstrap(environment: NodeJS.ProcessEnv = process.env): Promise<void> {
  const { S3Client, GetObjectCommand } = await import('@aws-sdk/client-s3');
  const { LambdaClient, GetLayerVersionByArnCommand } = await import('@aws-sdk/client-lambda');
  const read = (name: string) => environment[name] ?? '';
  const s3 = new S3Client({});
  const bundle = await s3.send(
    new GetObjectCommand({ Bucket: read(BOOTSTRAP_VARIABLES.bundleBucket), Key: read(BOOTSTRAP_VARIABLES.bundleKey) }),
  );
  const layer = await new LambdaClient({}).send(
    new GetLayerVersionByArnCommand({ Arn: read(BOOTSTRAP_VARIABLES.layerArn) }),
  );
  const [bundleZip, layerZip] = await Promise.all([
    bundle.Body!.transformToByteArray().then((bytes) => Buffer.from(bytes)),
    download(layer.Content!.Location!),
  ]);
  extractZip(bundleZip, join(APP, 'app'));
  extractZip(layerZip, join(APP, 'layer'));
  // app/node_modules: DuckDB from the layer; one level up, the image's SDK.
  mkdirSync(join(APP, 'app', 'node_modules'), { recursive: true });
  symlinkSync(join(APP, 'layer', 'nodejs', 'node_modules', '@duckdb'), join(APP, 'app', 'node_modules', '@duckdb'));
  symlinkSync(IMAGE_MODULES, join(APP, 'node_modules'));
  await import(join(APP, 'app', 'index.mjs'));
}

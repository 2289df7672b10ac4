/**
 * The running local stack's endpoints, written by `npm start` to its data folder
 * (.local/endpoints.json) and removed when it stops, so tools on the same machine
 * (`npm run create-client -- --local`, the AWS CLI, an SDK script) find the stand-ins without
 * anyone copying ports around.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';

export const ENDPOINTS_FILE = 'endpoints.json';

export const LocalEndpoints = z.strictObject({
  /** The process serving them: a file left by a process that died names one that is gone. */
  pid: z.int().positive(),
  api: z.url(),
  apiReference: z.url(),
  openApi: z.url(),
  s3: z.url(),
  dynamodb: z.url(),
  kms: z.url(),
  stepFunctions: z.url(),
  /** The local EventBridge Scheduler (infra/local/scheduler.ts). */
  scheduler: z.url(),
  /** The local ECS that runs the Fargate branch's tasks (infra/local/ecs.ts). */
  ecs: z.url(),
  /** The demo Delta Sharing server's profile endpoint. */
  deltaSharing: z.url(),
  /** The demo pricing DIM's host and its OAuth token URL. */
  pricingDim: z.url(),
  pricingTokenUrl: z.url(),
  region: z.string(),
  /** Every stand-in accepts this key pair (s3rver checks it; the others take any). */
  accessKeyId: z.string(),
  secretAccessKey: z.string(),
  tableName: z.string(),
  dataBucket: z.string(),
});
export type LocalEndpoints = z.infer<typeof LocalEndpoints>;

export function writeEndpointsFile(dataDir: string, endpoints: LocalEndpoints): string {
  const file = join(dataDir, ENDPOINTS_FILE);
  writeFileSync(file, `${JSON.stringify(endpoints, null, 2)}\n`);
  return file;
}

export function removeEndpointsFile(dataDir: string): void {
  rmSync(join(dataDir, ENDPOINTS_FILE), { force: true });
}

function isRunning(pid: number): boolean {
  try {
    // Signal 0 checks that the process exists without touching it.
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The endpoints of the stack running on `dataDir`, or why there is none, in words a user can
 * act on.
 */
export function readEndpointsFile(dataDir: string): LocalEndpoints | { readonly problem: string } {
  const file = join(dataDir, ENDPOINTS_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return { problem: `no local stack is running on ${dataDir}/ (${file} does not exist): start one with npm start` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const parsed = LocalEndpoints.safeParse(json);
  if (!parsed.success)
    return { problem: `${file} is not what npm start writes; stop the stack, delete the file and start it again` };
  if (!isRunning(parsed.data.pid))
    return {
      problem: `the local stack that wrote ${file} (process ${parsed.data.pid}) is no longer running: start one with npm start`,
    };
  return parsed.data;
}

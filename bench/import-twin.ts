/**
 * The twin under job load, as the benches drive it: bench/import-twin-process.ts in a child
 * process (its own core), asked over IPC to reset and report its profile; a client of its API
 * and of its S3; every wait bounded.
 */
import type { ChildProcess } from 'node:child_process';
import { createReadStream, rmSync } from 'node:fs';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiClient, type ApiResponse } from '../test/support/api-client';
import { exchangeToken } from '../test/support/harness';
import {
  SOURCE_BUCKET,
  type ImportChildMessage,
  type ImportParentMessage,
  type ImportTwinReady,
} from './import-protocol';
import { forkTwin } from './twin-fork';

export const LOCAL_S3_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;

/** Bounds: the child's start and close, one HTTP call, one S3 transfer, one DuckDB statement. */
const CHILD_READY_MS = 120_000;
const CHILD_CLOSE_MS = 15_000;
export const HTTP_MS = 15_000;
export const TRANSFER_MS = 300_000;
export const COPY_MS = 300_000;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function withTimeout<T>(promise: Promise<T>, ms: number, what: string, onTimeout?: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout?.();
      reject(new Error(`${what} took longer than ${ms / 1000} s`));
    }, ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export function nextMessage<T extends ImportChildMessage['type']>(
  child: ChildProcess,
  type: T,
  ms: number,
): Promise<Extract<ImportChildMessage, { type: T }>> {
  let cleanup = (): void => undefined;
  const answer = new Promise<Extract<ImportChildMessage, { type: T }>>((resolve, reject) => {
    const onMessage = (message: unknown): void => {
      if ((message as ImportChildMessage).type !== type) return;
      cleanup();
      resolve(message as Extract<ImportChildMessage, { type: T }>);
    };
    const onExit = (code: number | null): void => {
      cleanup();
      reject(new Error(`the twin process exited (code ${code}) before sending "${type}"`));
    };
    cleanup = () => {
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
  return withTimeout(answer, ms, `waiting for "${type}" from the twin process`, () => cleanup());
}

export function ask<T extends 'reset-done' | 'profile' | 'bare-done'>(
  child: ChildProcess,
  message: ImportParentMessage,
  answer: T,
  ms: number = HTTP_MS,
) {
  const reply = nextMessage(child, answer, ms);
  child.send(message);
  return reply;
}

/** The benches' twin process: the twin under import load, watched (import-twin-process.ts). */
const IMPORT_TWIN_PROCESS = new URL('./import-twin-process.ts', import.meta.url);

/**
 * Starts the twin process `script` (one that serves its twin with twin-child.ts); its
 * temporary files (s3rver's folder, the workers' scratch folders) go under `tmp`.
 */
export function startChild(
  tmp: string,
  script: URL = IMPORT_TWIN_PROCESS,
): { child: ChildProcess; exited: Promise<number | null> } {
  const child = forkTwin(script, {
    // BENCH_CPU_PROF=<folder> writes a V8 CPU profile of the twin (open it in Chrome DevTools).
    execArgv: [
      '--import',
      'tsx',
      ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
    ],
    env: { ...process.env, TMPDIR: tmp, TMP: tmp, TEMP: tmp },
    // The twin's output goes to stderr so that stdout carries only the report.
    stdio: ['ignore', 2, 2, 'ipc'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { child, exited };
}

/** Asks the child to close its twin; kills it if it does not exit in time. Never throws. */
export async function stopChild(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    if (child.connected) child.send({ type: 'close' } satisfies ImportParentMessage);
    else child.kill('SIGTERM');
  }
  const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_CLOSE_MS);
  const code = await exited;
  clearTimeout(timer);
  if (code !== 0) console.error(`import twin process exited with code ${code ?? child.signalCode}`);
}

/** The id of a created resource; fails on any other answer. */
export async function createdId(what: string, call: Promise<ApiResponse<{ readonly id: number }>>): Promise<number> {
  const response = await withTimeout(call, HTTP_MS, what);
  if (response.status !== 201) throw new Error(`${what}: ${response.status} ${response.text}`);
  return response.body.id;
}

/** Connection, data source over `folder` of the source bucket, data table named `name`: the table id. */
export async function tableOverSource(
  api: ApiClient,
  ready: ImportTwinReady,
  folder: string,
  name: string,
): Promise<number> {
  const connectionId = await createdId(
    'createConnection',
    api.call('createConnection', {
      body: {
        name: `bench source ${name}`,
        type: 'object_store',
        auth: {
          auth_type: 'secret_key',
          access_key_id: LOCAL_S3_CREDENTIALS.accessKeyId,
          secret_access_key: LOCAL_S3_CREDENTIALS.secretAccessKey,
          endpoint: ready.s3Endpoint,
        },
      },
    }),
  );
  const dataSourceId = await createdId(
    'createDataSource',
    api.call('createDataSource', {
      body: {
        name: `bench source ${name}`,
        type: 'bucket',
        connection_id: connectionId,
        path: `${SOURCE_BUCKET}/${folder}/`,
      },
    }),
  );
  return createdId('createDataTable', api.call('createDataTable', { body: { name, data_source_id: dataSourceId } }));
}

export function s3Client(endpoint: string): S3Client {
  return new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: LOCAL_S3_CREDENTIALS,
    // s3rver stores an aws-chunked body (what a streamed upload with the default checksum becomes) verbatim.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

export async function upload(
  s3: S3Client,
  bucket: string,
  key: string,
  path: string,
  contentType: string,
): Promise<void> {
  const { size } = await stat(path);
  await s3.send(
    new PutObjectCommand({
      Bucket: bucket,
      Key: key,
      Body: createReadStream(path),
      ContentLength: size,
      ContentType: contentType,
    }),
    {
      abortSignal: AbortSignal.timeout(TRANSFER_MS),
    },
  );
}

/** The twin process's temporary folder (TMPDIR), under the session's folder. */
export const TWIN_TMP = 'twin-tmp';

/** What a bench gets while the twin runs: the child, a scratch folder, S3 and API clients. */
export interface ImportTwinSession {
  readonly child: ChildProcess;
  readonly dir: string;
  readonly s3: S3Client;
  readonly api: ApiClient;
  readonly ready: ImportTwinReady;
}

/**
 * Starts the twin process (`script`, import-twin-process.ts unless told) with its temporary
 * files under a fresh folder (`prefix` under os.tmpdir(), the twin's own in its `twin-tmp`),
 * signs in as its bootstrap admin, runs `use`, then stops the twin and removes the folder.
 * Should the bench exit or be interrupted on the way, the twin and the folder go with it.
 */
export async function withImportTwin<T>(
  prefix: string,
  use: (session: ImportTwinSession) => Promise<T>,
  script?: URL,
): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const twinTmp = join(dir, TWIN_TMP);
  await mkdir(twinTmp);
  const { child, exited } = startChild(twinTmp, script);
  const abandon = () => {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  const interrupted = () => {
    abandon();
    process.exit(130);
  };
  process.once('exit', abandon);
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  let s3: S3Client | undefined;
  try {
    const ready = await nextMessage(child, 'ready', CHILD_READY_MS);
    s3 = s3Client(ready.s3Endpoint);
    const api = new ApiClient(
      ready.apiUrl,
      await withTimeout(exchangeToken(ready.apiUrl, ready.clientId, ready.clientSecret), HTTP_MS, 'token exchange'),
    );
    return await use({ child, dir, s3, api, ready });
  } finally {
    s3?.destroy();
    await stopChild(child, exited);
    process.off('exit', abandon);
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
    await rm(dir, { recursive: true, force: true });
  }
}

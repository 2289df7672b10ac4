/**
 * Local S3: s3rver (the S3 REST API on the file system). It accepts the access key S3RVER
 * with secret S3RVER, which is what the README's walkthrough uses for its object-store
 * connection.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { BoundedFilesystemStore } from './s3-store';

export const LOCAL_S3_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;

export interface LocalS3 {
  readonly endpoint: string;
  readonly port: number;
  close(): Promise<void>;
}

export async function startLocalS3(
  options: { directory?: string; port?: number; buckets?: readonly string[] } = {},
): Promise<LocalS3> {
  const temporary = options.directory === undefined ? mkdtempSync(join(tmpdir(), 'dps-s3-')) : undefined;
  const directory = options.directory ?? temporary!;
  const server = new S3rver({
    address: '127.0.0.1',
    port: options.port ?? 0,
    directory,
    silent: true,
    configureBuckets: (options.buckets ?? []).map((name) => ({ name })),
  });
  // s3rver's own store lets a file system error end the process (s3-store.ts says how).
  server.store = server.context.store = new BoundedFilesystemStore(directory);
  const { port } = await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    async close() {
      server.httpServer?.closeAllConnections();
      await server.close();
      if (temporary) rmSync(temporary, { recursive: true, force: true });
    },
  };
}

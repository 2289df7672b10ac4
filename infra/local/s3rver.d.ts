declare module 's3rver' {
  import type { Server } from 'node:http';
  import type FilesystemStore from 's3rver/lib/stores/filesystem';
  interface S3rverOptions {
    address?: string;
    port?: number;
    directory: string;
    silent?: boolean;
    resetOnClose?: boolean;
    allowMismatchedSignatures?: boolean;
    vhostBuckets?: boolean;
    configureBuckets?: { name: string }[];
  }
  export default class S3rver {
    constructor(options: S3rverOptions);
    httpServer?: Server;
    /** The store every request goes through (`app.context.store` is the same object). */
    store: FilesystemStore;
    readonly context: { store: FilesystemStore };
    run(): Promise<{ address: string; port: number }>;
    close(): Promise<void>;
  }
}

/** An object as s3rver's controllers hand it to the store. */
declare module 's3rver/lib/models/object' {
  import type { Readable } from 'node:stream';
  export default class S3Object {
    constructor(bucket: string, key: string, content: Buffer | Readable | null, metadata: Record<string, string>);
    readonly bucket: string;
    readonly key: string;
    readonly content: Buffer | Readable;
    readonly metadata: Record<string, string>;
  }
}

/** s3rver's error: its `onerror` answers it as S3's XML error document with the code's status. */
declare module 's3rver/lib/models/error' {
  export default class S3Error extends Error {
    constructor(code: string, message: string, detail?: Record<string, string>);
    readonly code: string;
    readonly status: number;
  }
}

/** The file-system store behind s3rver: objects are files named after their keys. */
declare module 's3rver/lib/stores/filesystem' {
  import type { Readable } from 'node:stream';
  import type S3Object from 's3rver/lib/models/object';
  export default class FilesystemStore {
    constructor(rootDirectory: string);
    readonly rootDirectory: string;
    getResourcePath(bucket: string, key: string | undefined, resource: string): string;
    putMetadata(bucket: string, key: string, metadata: Record<string, string>, md5?: string): Promise<void>;
    putObject(object: S3Object): Promise<{ size: number; md5: string }>;
    copyObject(
      srcBucket: string,
      srcKey: string,
      destBucket: string,
      destKey: string,
      replacementMetadata?: Record<string, string>,
    ): Promise<unknown>;
    getObject(bucket: string, key: string, options?: unknown): Promise<S3Object | null>;
    existsObject(bucket: string, key: string): Promise<boolean>;
    deleteObject(bucket: string, key: string): Promise<void>;
    initiateUpload(bucket: string, key: string, uploadId: string, metadata: Record<string, string>): Promise<void>;
    putPart(
      bucket: string,
      uploadId: string,
      partNumber: string,
      content: Readable,
    ): Promise<{ size: number; md5: string }>;
    putObjectMultipart(
      bucket: string,
      uploadId: string,
      parts: readonly { number: number; etag: string }[],
    ): Promise<{ size: number; md5: string }>;
  }
}

/**
 * s3rver's file-system store with its failure paths made S3's answers. s3rver writes an
 * object through a file stream without an 'error' listener, so a key it cannot turn into a
 * file (a segment longer than a file name may be: ENAMETOOLONG) raised an uncaught exception
 * that ended the whole twin. Here every write goes through `pipeline` into a file opened
 * before the body is read, and what the file system refuses becomes the S3 error document
 * s3rver's `onerror` answers (docs/decisions.md, "The local twin under hostile requests").
 */
import { createHash } from 'node:crypto';
import { createReadStream, type WriteStream } from 'node:fs';
import { mkdir, open, readFile, rm, rmdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import S3Error from 's3rver/lib/models/error';
import S3Object from 's3rver/lib/models/object';
import FilesystemStore from 's3rver/lib/stores/filesystem';
import { MAX_KEY_SEGMENT_BYTES, MAX_OBJECT_KEY_BYTES } from '../../shared/model/object-key';

/** s3rver's longest addition to a key's last segment: "<segment>._S3rver_metadata.json". */
const LONGEST_SUFFIX_BYTES = Buffer.byteLength('._S3rver_metadata.json');
/** s3rver's upload ids: 16 random bytes in hex. Anything else would be a path of our choosing. */
const UPLOAD_ID = /^[0-9a-f]{32}$/;

const keyTooLong = (why: string) => new S3Error('KeyTooLongError', `Your key is too long: ${why}.`);

/**
 * A key S3 accepts that this store cannot keep as files: reads answer it as absent, since it
 * cannot have been written; writes answer 400 with `code`.
 */
class UnstorableKey extends S3Error {}

function checkKey(key: string): void {
  const bytes = Buffer.byteLength(key);
  if (bytes > MAX_OBJECT_KEY_BYTES) throw keyTooLong(`${bytes} bytes, S3 stores at most ${MAX_OBJECT_KEY_BYTES}`);
  const segments = key.split('/');
  const last = segments.pop() ?? '';
  if (segments.some((segment) => segment === '.' || segment === '..')) {
    // They would name folders outside the key's own, another bucket's among them.
    throw new UnstorableKey('InvalidArgument', 'The local S3 cannot store a key with a "." or ".." folder segment.');
  }
  const fileNameLimit = MAX_KEY_SEGMENT_BYTES - LONGEST_SUFFIX_BYTES;
  if (
    segments.some((segment) => Buffer.byteLength(segment) > MAX_KEY_SEGMENT_BYTES) ||
    Buffer.byteLength(last) > fileNameLimit
  ) {
    throw new UnstorableKey(
      'KeyTooLongError',
      `Your key is too long for the local S3: it keeps each segment between slashes as a file name, at most ${MAX_KEY_SEGMENT_BYTES} bytes for a folder and ${fileNameLimit} for the last segment.`,
    );
  }
}

/** What the file system refuses while writing a key, as S3 answers it. */
async function writing<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENAMETOOLONG') throw keyTooLong('the local S3 cannot store it');
    throw error;
  }
}

/** Writes `content` to `path`, answering its size and MD5 once the file is complete. */
async function writeFileFrom(path: string, content: Buffer | Readable): Promise<{ size: number; md5: string }> {
  await mkdir(dirname(path), { recursive: true });
  // Opened before the body is read, so that a name the file system refuses is answered with
  // the request still whole; pipeline closes the file and reports any later error.
  const file = await open(path, 'w');
  const md5 = createHash('md5');
  let size = 0;
  const measure = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      md5.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  const sink: WriteStream = file.createWriteStream();
  await pipeline(Buffer.isBuffer(content) ? Readable.from([content]) : content, measure, sink);
  return { size, md5: md5.digest('hex') };
}

/** The store s3rver is given in infra/local/s3.ts: its own, with the writes above. */
export class BoundedFilesystemStore extends FilesystemStore {
  override getResourcePath(bucket: string, key: string | undefined, resource: string): string {
    if (key) checkKey(key);
    return super.getResourcePath(bucket, key, resource);
  }

  override async getObject(bucket: string, key: string, options?: unknown): Promise<S3Object | null> {
    try {
      return await super.getObject(bucket, key, options);
    } catch (error) {
      if (error instanceof UnstorableKey) return null;
      throw error;
    }
  }

  override async existsObject(bucket: string, key: string): Promise<boolean> {
    try {
      return await super.existsObject(bucket, key);
    } catch (error) {
      if (error instanceof UnstorableKey) return false;
      throw error;
    }
  }

  override putObject(object: S3Object): Promise<{ size: number; md5: string }> {
    return writing(async () => {
      const written = await writeFileFrom(this.getResourcePath(object.bucket, object.key, 'object'), object.content);
      await this.putMetadata(object.bucket, object.key, object.metadata, written.md5);
      return written;
    });
  }

  /**
   * s3rver's own deletion removes the key's folders once empty with a read of the folder and
   * then rmdir: DeleteObjects deletes its keys in parallel, so with several keys in one folder
   * another key's deletion had already removed it (ENOENT) and the request answered 500
   * InternalError. Here each folder up the key is removed if empty, and a folder already gone
   * or no longer empty is no error.
   */
  override async deleteObject(bucket: string, key: string): Promise<void> {
    const files = ['object', 'object.md5', 'metadata.json'].map((resource) =>
      this.getResourcePath(bucket, key, resource),
    );
    await Promise.all(files.map((file) => rm(file, { force: true })));
    const bucketFolder = join(this.rootDirectory, bucket);
    for (let folder = dirname(files[0]!); folder.startsWith(`${bucketFolder}/`); folder = dirname(folder)) {
      try {
        await rmdir(folder);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOTEMPTY' || code === 'EEXIST') return;
        if (code !== 'ENOENT') throw error;
      }
    }
  }

  override copyObject(...copy: Parameters<FilesystemStore['copyObject']>): Promise<unknown> {
    return writing(() => super.copyObject(...copy));
  }

  override initiateUpload(bucket: string, key: string, uploadId: string, metadata: Record<string, string>) {
    checkKey(key);
    return super.initiateUpload(bucket, key, uploadId, metadata);
  }

  override async putPart(bucket: string, uploadId: string, partNumber: string, content: Readable) {
    const folder = await this.uploadFolder(bucket, uploadId);
    if (!/^\d{1,5}$/.test(partNumber) || Number(partNumber) < 1 || Number(partNumber) > 10_000) {
      throw new S3Error('InvalidArgument', 'Part number must be an integer between 1 and 10000, inclusive');
    }
    return writeFileFrom(join(folder, partNumber), content);
  }

  override async putObjectMultipart(bucket: string, uploadId: string, parts: readonly { number: number }[]) {
    const folder = await this.uploadFolder(bucket, uploadId);
    const [key, metadata] = await Promise.all([
      readFile(join(folder, 'key'), 'utf8'),
      readFile(join(folder, 'metadata'), 'utf8').then((text) => JSON.parse(text) as Record<string, string>),
    ]);
    const paths = parts
      .map((part) => part.number)
      .sort((a, b) => a - b)
      .map((number) => join(folder, String(number)));
    // Checked before anything is read: s3rver's own concatenation left a missing part's read
    // error unlistened, which ended the process too.
    if (!(await Promise.all(paths.map(exists))).every(Boolean)) {
      throw new S3Error('InvalidPart', 'One or more of the specified parts could not be found.');
    }
    const result = await this.putObject(new S3Object(bucket, key, Readable.from(concatenated(paths)), metadata));
    await rm(folder, { recursive: true, force: true });
    return result;
  }

  /** The folder of an upload this store started; NoSuchUpload, as S3 answers, otherwise. */
  private async uploadFolder(bucket: string, uploadId: string): Promise<string> {
    const folder = join(this.getResourcePath(bucket, undefined, 'uploads'), uploadId);
    if (!UPLOAD_ID.test(uploadId) || !(await exists(join(folder, 'key')))) {
      throw new S3Error(
        'NoSuchUpload',
        'The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.',
      );
    }
    return folder;
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

async function* concatenated(paths: readonly string[]): AsyncGenerator<Buffer> {
  for (const path of paths) yield* createReadStream(path) as AsyncIterable<Buffer>;
}

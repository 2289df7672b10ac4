/**
 * Uploads to the GCS fake (gcs.ts), as @google-cloud/storage 7 sends them to
 * /upload/storage/v1/b/{bucket}/o: uploadType media (the bytes alone), multipart (a multipart/related
 * body of metadata and bytes) and resumable (a session opened by POST, then PUT chunks with a
 * Content-Range, each answered 308 until the last, or the rest sent whole). A finished upload is
 * stored through the sink the fake passes in and answered with the object resource it returns.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { apiError, sendJson } from './google-auth';

/** Stores a finished upload and returns the object resource to answer with. */
export type UploadSink = (bucket: string, name: string, data: Buffer, contentType: string) => object;

interface Session {
  readonly bucket: string;
  readonly name: string;
  readonly contentType: string;
  readonly parts: Buffer[];
  received: number;
}

/** The upload endpoint of the GCS fake, with the resumable sessions it has open. */
export class GcsUploads {
  private readonly sessions = new Map<string, Session>();

  constructor(
    private readonly endpoint: string,
    private readonly store: UploadSink,
  ) {}

  /** Answers one request to /upload/storage/v1/b/{bucket}/o, the writer role already checked. */
  handle(
    method: string,
    bucket: string,
    query: URLSearchParams,
    body: Buffer,
    request: IncomingMessage,
    response: ServerResponse,
  ): void {
    const type = query.get('uploadType');
    const contentType = request.headers['content-type'] ?? 'application/octet-stream';
    if (method === 'POST' && type === 'media')
      return this.finish(response, bucket, query.get('name') ?? '', body, contentType);
    if (method === 'POST' && type === 'multipart') {
      const [metadata, media] = multipartParts(contentType, body);
      if (!metadata || !media)
        return apiError(response, 400, 'invalid', 'Invalid multipart request.', 'INVALID_ARGUMENT');
      const fields = JSON.parse(metadata.body.toString('utf8')) as { name?: string; contentType?: string };
      return this.finish(
        response,
        bucket,
        query.get('name') ?? fields.name ?? '',
        media.body,
        fields.contentType ?? media.contentType,
      );
    }
    if (method === 'POST' && type === 'resumable') {
      const fields =
        body.length > 0 ? (JSON.parse(body.toString('utf8')) as { name?: string; contentType?: string }) : {};
      const id = randomBytes(12).toString('hex');
      const name = query.get('name') ?? fields.name ?? '';
      this.sessions.set(id, {
        bucket,
        name,
        contentType: String(
          request.headers['x-upload-content-type'] ?? fields.contentType ?? 'application/octet-stream',
        ),
        parts: [],
        received: 0,
      });
      const location = `${this.endpoint}/upload/storage/v1/b/${encodeURIComponent(bucket)}/o?uploadType=resumable&name=${encodeURIComponent(name)}&upload_id=${id}`;
      response.writeHead(200, { location, 'content-length': '0' });
      return void response.end();
    }
    const session = method === 'PUT' ? this.sessions.get(query.get('upload_id') ?? '') : undefined;
    if (!session) return apiError(response, 404, 'notFound', 'No such upload session.', 'NOT_FOUND');
    // "bytes 0-262143/*", "bytes 262144-300000/300001", "bytes 0-*/*" (the rest, whole) or "bytes */300001" (a status query).
    const range = /^bytes (?:(\d+)-(\d+|\*)|\*)\/(\d+|\*)$/.exec(String(request.headers['content-range'] ?? ''));
    if (!range) return apiError(response, 400, 'invalid', 'Invalid Content-Range.', 'INVALID_ARGUMENT');
    if (range[1] !== undefined) {
      if (Number(range[1]) !== session.received)
        return apiError(response, 400, 'invalid', 'Chunk does not start where the last one ended.', 'INVALID_ARGUMENT');
      session.parts.push(body);
      session.received += body.length;
    }
    const total = range[3] === '*' ? (range[2] === '*' ? session.received : undefined) : Number(range[3]);
    if (total === undefined || session.received < total) {
      response.writeHead(308, {
        ...(session.received > 0 ? { range: `bytes=0-${session.received - 1}` } : {}),
        'content-length': '0',
      });
      return void response.end();
    }
    this.sessions.delete(query.get('upload_id')!);
    this.finish(response, session.bucket, session.name, Buffer.concat(session.parts), session.contentType);
  }

  private finish(response: ServerResponse, bucket: string, name: string, data: Buffer, contentType: string): void {
    if (name === '') return apiError(response, 400, 'required', 'Required parameter: name', 'INVALID_ARGUMENT');
    sendJson(response, 200, this.store(bucket, name, data, contentType));
  }
}

/** The parts of a multipart/related body, binary-safe. */
function multipartParts(contentType: string, body: Buffer): { contentType: string; body: Buffer }[] {
  const boundary = /boundary="?([^";]+)"?/.exec(contentType)?.[1];
  if (!boundary) return [];
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: { contentType: string; body: Buffer }[] = [];
  let start = body.indexOf(delimiter);
  while (start !== -1) {
    const next = body.indexOf(delimiter, start + delimiter.length);
    if (next === -1) break;
    const part = body.subarray(start + delimiter.length + 2, next - 2);
    const split = part.indexOf('\r\n\r\n');
    const headers = part.subarray(0, split).toString('utf8');
    parts.push({
      contentType: /content-type:\s*([^\r\n]+)/i.exec(headers)?.[1] ?? 'application/octet-stream',
      body: part.subarray(split + 4),
    });
    start = next;
  }
  return parts;
}

/**
 * The twin's API Gateway stand-in at the transport level, where the typed client cannot go: a
 * request body is read whenever the request announces one, by Content-Length or by chunked
 * Transfer-Encoding, and a request that announces none reaches its route without one; a body
 * over the gateway's limit is answered 413 and leaves its kept-alive connection usable.
 */
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionRequest } from '../../../bench/protocol';
import { startTestTwin, type TestTwin } from '../../support/harness';

let env: TestTwin;
beforeAll(async () => {
  env = await startTestTwin();
});
afterAll(() => env?.close());

/** POST /connections with the body written in `parts`, each its own chunk; no Content-Length unless given. */
function post(
  parts: readonly string[],
  headers: Readonly<Record<string, string>> = {},
): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const sent = request(
      `${env.twin.apiUrl}/connections`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${env.admin.token ?? ''}`, 'content-type': 'application/json', ...headers },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            json: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown,
          }),
        );
      },
    );
    sent.on('error', reject);
    for (const part of parts) sent.write(part);
    sent.end();
  });
}

describe('request bodies at the gateway stand-in', () => {
  it('reads a body sent in chunks without Content-Length', async () => {
    const text = JSON.stringify(connectionRequest('chunked', env.twin.s3.endpoint));
    const created = await post([text.slice(0, 10), text.slice(10, 40), text.slice(40)]);
    expect(created.status).toBe(201);
    const { id } = created.json as { id: number };
    const read = await env.admin.call('getConnection', { params: { connection_id: id } });
    expect(read.body.name).toBe('chunked');
  });

  it('passes no body on when Content-Length is 0', async () => {
    const refused = await post([], { 'content-length': '0' });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ code: '10-1400', extraDetails: { body: 'is required' } });
  });
});

/** A raw HTTP/1.1 connection: what is written goes out as it is, and answers are read one at a time. */
class RawConnection {
  private received = Buffer.alloc(0);
  private waiting: (() => void) | undefined;
  private closed = false;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      this.waiting?.();
    });
    socket.on('close', () => {
      this.closed = true;
      this.waiting?.();
    });
    socket.on('error', () => undefined);
  }

  static open(url: string): Promise<RawConnection> {
    const { hostname, port } = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => resolve(new RawConnection(socket)));
      socket.once('error', reject);
    });
  }

  write(data: string | Buffer): void {
    this.socket.write(data);
  }

  /** The next answer on this connection; it fails when the connection closes or stays silent for `withinMs`. */
  async response(withinMs = 10_000): Promise<{ status: number; headers: string; body: string }> {
    const deadline = Date.now() + withinMs;
    for (;;) {
      const end = this.received.indexOf('\r\n\r\n');
      if (end !== -1) {
        const headers = this.received.subarray(0, end).toString('latin1');
        const length = Number(/^content-length: *(\d+)$/im.exec(headers)?.[1] ?? 0);
        if (this.received.length >= end + 4 + length) {
          const body = this.received.subarray(end + 4, end + 4 + length).toString('utf8');
          this.received = this.received.subarray(end + 4 + length);
          return { status: Number(headers.split(' ')[1]), headers, body };
        }
      }
      if (this.closed) throw new Error('the connection closed before an answer');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no answer within ${withinMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiting = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.waiting = undefined;
    }
  }

  close(): void {
    this.socket.destroy();
  }
}

describe('a body over the limit at the gateway stand-in', () => {
  it('is answered 413, and the next request on the same kept-alive connection is answered', async () => {
    const { pathname, host } = new URL(env.twin.apiUrl);
    const connection = await RawConnection.open(env.twin.apiUrl);
    try {
      const size = 11 * 1024 * 1024;
      connection.write(
        `POST ${pathname}/connections HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${env.admin.token ?? ''}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`,
      );
      connection.write(Buffer.alloc(size, ' '));
      const refused = await connection.response();
      expect(refused.status).toBe(413);
      expect(JSON.parse(refused.body)).toEqual({ message: 'Request Entity Too Large' });

      connection.write(
        `GET ${pathname}/connections HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${env.admin.token ?? ''}\r\n\r\n`,
      );
      const listed = await connection.response();
      expect(listed.status).toBe(200);
      expect(JSON.parse(listed.body)).toMatchObject({ items: expect.any(Array) });
    } finally {
      connection.close();
    }
  });
});

import { createServer, type Server } from 'node:http';
import { mkdtempSync, writeFileSync, createReadStream, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isBrokenConnection, sendStreamed } from '../../../shared/aws/streamed-send';

/**
 * A store that drops the connection of its first `drops` requests before answering (as a
 * keep-alive connection closed by the server just as a request goes out on it), then stores.
 */
function droppingStore(drops: number): Promise<{ server: Server; endpoint: string; bodies: string[] }> {
  const bodies: string[] = [];
  let seen = 0;
  const server = createServer((request, response) => {
    seen += 1;
    if (seen <= drops) {
      request.socket.destroy();
      return;
    }
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      bodies.push(body);
      response.writeHead(200, { etag: '"e"' }).end();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      resolve({ server, endpoint: `http://127.0.0.1:${port}`, bodies });
    }),
  );
}

const folder = mkdtempSync(join(tmpdir(), 'streamed-send-'));
const file = join(folder, 'data.csv');
let client: S3Client;
const servers: Server[] = [];

beforeAll(() => {
  writeFileSync(file, 'id\n1\n2\n');
});
afterAll(() => {
  client?.destroy();
  for (const server of servers) server.close();
  rmSync(folder, { recursive: true, force: true });
});

function put(endpoint: string) {
  client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });
  return () =>
    client.send(new PutObjectCommand({ Bucket: 'b', Key: 'k', Body: createReadStream(file), ContentLength: 7 }));
}

describe('a streamed upload whose connection breaks before an answer', () => {
  it('fails alone (the SDK cannot send a read stream again), and is sent again with a new body by sendStreamed', async () => {
    const once = await droppingStore(1);
    servers.push(once.server);
    const send = put(once.endpoint);
    const failure = await send().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isBrokenConnection(failure), String(failure)).toBe(true);
    const again = await droppingStore(1);
    servers.push(again.server);
    await sendStreamed(put(again.endpoint));
    expect(again.bodies).toEqual(['id\n1\n2\n']);
  });

  it('gives up after three attempts, with the connection error', async () => {
    const always = await droppingStore(10);
    servers.push(always.server);
    await expect(sendStreamed(put(always.endpoint))).rejects.toSatisfy(isBrokenConnection);
    expect(always.bodies).toEqual([]);
  });

  it('does not send again what the service answered', () => {
    const refused = Object.assign(new Error('Access Denied'), { $metadata: { httpStatusCode: 403 } });
    expect(isBrokenConnection(refused)).toBe(false);
    expect(isBrokenConnection(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))).toBe(true);
  });
});

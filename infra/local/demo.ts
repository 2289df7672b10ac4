/**
 * The demo data `npm start` seeds into its local S3, so the README's walkthrough has
 * something to find; the walkthrough's test seeds the same.
 */
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { LOCAL_S3_CREDENTIALS } from './s3';

export const DEMO_BUCKET = 'demo';

/** Object key → content, in DEMO_BUCKET. */
export const DEMO_OBJECTS: Readonly<Record<string, string>> = {
  'sales/2024-01.csv': 'order_id,region,amount\n1,north,120.50\n2,south,80.00\n3,north,42.25\n',
};

/** Writes DEMO_OBJECTS into the local S3 at `endpoint` (again at every start: the demo stays as documented). */
export async function seedDemoBucket(endpoint: string): Promise<void> {
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: LOCAL_S3_CREDENTIALS,
  });
  try {
    for (const [key, body] of Object.entries(DEMO_OBJECTS)) {
      await client.send(new PutObjectCommand({ Bucket: DEMO_BUCKET, Key: key, ContentType: 'text/csv', Body: body }));
    }
  } finally {
    client.destroy();
  }
}

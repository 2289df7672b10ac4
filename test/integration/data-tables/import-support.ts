/**
 * Fixtures of the import pipeline tests (import.test.ts): the sales CSV files and the rows they hold,
 * the landing bucket's good and broken files, and what an import leaves behind (data files, usage).
 */
import { GetCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DATA_BUCKET } from '../../../infra/local/twin';
import { keys } from '../../../shared/db/keys';
import { usagePeriod } from '../../../shared/usage';
import { listKeys } from '../../support/exports';
import type { TestTwin } from '../../support/harness';

/** The header of every sales CSV file. */
export const HEADER = 'id,name,amount,day,flag,comment,region';
const row = (id: number) =>
  `${id},name ${id},${(id * 1.5).toFixed(2)},2024-01-${String((id % 28) + 1).padStart(2, '0')},${id % 2 === 0},${id % 10 === 0 ? 'note' : ''},EU`;

/** A sales CSV file of the rows `ids`. */
export const csv = (ids: number[]) => `${HEADER}\n${ids.map(row).join('\n')}\n`;

/** The integers from `from` to `to`, both included. */
export const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index);

/** Sales row `id` as an import shows it, typed. */
export function expectedRow(id: number) {
  return {
    id,
    name: `name ${id}`,
    amount: Number((id * 1.5).toFixed(2)),
    day: `2024-01-${String((id % 28) + 1).padStart(2, '0')}`,
    flag: id % 2 === 0,
    comment: id % 10 === 0 ? 'note' : null,
    region: 'EU',
  };
}

/** The landing bucket: 100 sales rows in two files below sales/, and one folder per way an import fails. */
export const LANDING_OBJECTS: Readonly<Record<string, string | Uint8Array>> = {
  'sales/2024-01.csv': csv(range(1, 60)),
  'sales/archive/2024-02.csv': csv(range(61, 100)),
  'sales/readme.txt': 'not a CSV: ignored',
  'empty-folder/readme.txt': 'no CSV here',
  'broken/ragged.csv': `${HEADER}\n1,a,2,2024-01-01,true,,EU\n2,b\n3,"unterminated\n`,
  'binary/data.csv': new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0, 0, 0, 1, 2, 3, 0, 0, 255, 254]),
  'corrupt/c.csv': Buffer.concat([Buffer.from('a,b\n1,'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('\n')]),
  'empty/e.csv': '',
  'header-only/h.csv': `${HEADER}\n`,
  'bad-header/h.csv': 'id,"first\nname",amount\n1,a,2\n',
};

/** The keys below `prefix` in the twin's data bucket, relative to it, sorted. */
export async function dataBucketKeys(env: TestTwin, prefix: string): Promise<string[]> {
  return (await listKeys(env, DATA_BUCKET, prefix)).map((key) => key.slice(prefix.length));
}

/** The bytes of data the tenant `local` read this usage period, as the usage table records them. */
export async function bytesReadThisPeriod(env: TestTwin): Promise<number> {
  const client = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: env.twin.dynamoEndpoint }));
  try {
    const key = keys.usage('local', 'DATA_READ_BYTES', usagePeriod());
    const { Item } = await client.send(new GetCommand({ TableName: process.env.TABLE_NAME, Key: key }));
    return Number(Item?.value ?? 0);
  } finally {
    client.destroy();
  }
}

/**
 * What one handler invocation asks of AWS, counted in this process: every outbound SDK call
 * (Node's HTTP diagnostics channel: DynamoDB, KMS and Step Functions by their x-amz-target, S3
 * by the local S3's port) and the DynamoDB capacity units consumed. Capacity is asked for in one
 * place, a middleware on the document client every repository uses (shared/aws/clients.ts), which
 * only this bench adds: it sets ReturnConsumedCapacity TOTAL on each request and adds up the answers.
 */
import { subscribe } from 'node:diagnostics_channel';
import type { ClientRequest } from 'node:http';
import { dynamoDocumentClient } from '../shared/aws/clients';

/** Calls by service and operation ("DynamoDB GetItem", "S3 PUT"), and DynamoDB's capacity units. */
export interface CallTally {
  readonly calls: Readonly<Record<string, number>>;
  readonly readUnits: number;
  readonly writeUnits: number;
}

const READ_OPERATIONS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);
const WRITE_OPERATIONS = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);

/** DynamoDB's read calls and write calls in a tally. */
export function dynamoCalls(tally: CallTally): { readonly reads: number; readonly writes: number } {
  let reads = 0;
  let writes = 0;
  for (const [name, count] of Object.entries(tally.calls)) {
    const [service, operation = ''] = name.split(' ');
    if (service !== 'DynamoDB') continue;
    if (READ_OPERATIONS.has(operation)) reads += count;
    if (WRITE_OPERATIONS.has(operation)) writes += count;
  }
  return { reads, writes };
}

interface Capacity {
  readonly CapacityUnits?: number;
  readonly ReadCapacityUnits?: number;
  readonly WriteCapacityUnits?: number;
}

const SERVICES_BY_TARGET: Readonly<Record<string, string>> = {
  DynamoDB_20120810: 'DynamoDB',
  TrentService: 'KMS',
  AWSStepFunctions: 'StepFunctions',
};

/** Starts counting; `take` answers what was counted since the last `take` and starts anew. */
export function installMeter(s3Port: number): { take(): CallTally } {
  let calls = new Map<string, number>();
  let readUnits = 0;
  let writeUnits = 0;
  subscribe('http.client.request.start', (message) => {
    const { request } = message as { request: ClientRequest };
    const target = String(request.getHeader('x-amz-target') ?? '');
    const port = Number(String(request.getHeader('host') ?? '').split(':')[1]);
    const [prefix = '', operation = request.method] = target.split('.');
    const service = SERVICES_BY_TARGET[prefix] ?? (port === s3Port ? 'S3' : `other ${request.host}`);
    const name = `${service} ${operation}`;
    calls.set(name, (calls.get(name) ?? 0) + 1);
  });
  dynamoDocumentClient().middlewareStack.add(
    (next, context) => async (args) => {
      (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = 'TOTAL';
      const result = await next(args);
      const consumed = (result.output as { ConsumedCapacity?: Capacity | Capacity[] }).ConsumedCapacity;
      const isRead = READ_OPERATIONS.has(String(context.commandName ?? '').replace(/Command$/, ''));
      for (const capacity of [consumed ?? []].flat()) {
        if (isRead) readUnits += capacity.ReadCapacityUnits ?? capacity.CapacityUnits ?? 0;
        else writeUnits += capacity.WriteCapacityUnits ?? capacity.CapacityUnits ?? 0;
      }
      return result;
    },
    { step: 'initialize', name: 'costBenchCapacity' },
  );
  return {
    take() {
      const tally = { calls: Object.fromEntries(calls), readUnits, writeUnits };
      calls = new Map();
      readUnits = 0;
      writeUnits = 0;
      return tally;
    },
  };
}

/**
 * Local DynamoDB: dynalite's storage, validation and expression engine behind a small HTTP
 * front that also answers TransactWriteItems, which dynalite lacks.
 *
 * Why this exists: uniqueness and "in use" rules are enforced with conditional transactions
 * (DESIGN §4). dynalite evaluates conditions and applies writes per item; a transaction
 * needs all-or-nothing over several items. This front serialises writes with one lock,
 * checks every condition of a transaction against the current items, then applies them, and
 * restores the earlier items should an apply step fail. Reads take the lock shared, so no
 * read observes half a transaction. Throughput is that of one writer, which is what a local
 * twin needs.
 *
 * dynalite's internals (db, validations, actions) are used directly; the version is pinned
 * exactly in package.json for that reason.
 */
import { createRequire } from 'node:module';
import { JsonProtocolError, startJsonProtocolServer, type JsonObject, type JsonOperation } from './json-protocol';

const require = createRequire(import.meta.url);

type Callback<T> = (error: DynaliteError | null, result?: T) => void;
interface DynaliteError extends Error {
  statusCode?: number;
  body?: Record<string, unknown>;
}
type AttributeMap = Record<string, unknown>;
interface Table {
  TableName: string;
}
interface ItemDb {
  get(key: string, cb: (error: Error | null, item?: AttributeMap) => void): void;
}
interface Store {
  getTable(name: string, cb: Callback<Table>): void;
  getItemDb(name: string): ItemDb;
  lifecycleManager: { gracefulClose(cb: (error?: Error | null) => void): void };
}
type Action = (store: Store, data: Record<string, unknown>, cb: Callback<Record<string, unknown>>) => void;
interface ActionValidation {
  types: Record<string, unknown>;
  custom?: (data: Record<string, unknown>, store: Store) => string | undefined;
}

const dynaliteDb = require('dynalite/db') as {
  create(options: Record<string, unknown>): Store;
  createKey(item: AttributeMap, table: Table): string;
  checkConditional(data: Record<string, unknown>, item: AttributeMap | undefined): DynaliteError | null;
  itemSize(item: AttributeMap): number;
};
const validations = require('dynalite/validations') as {
  checkTypes(data: unknown, types: Record<string, unknown>): Record<string, unknown>;
  checkValidations(data: Record<string, unknown>, types: Record<string, unknown>, custom: unknown, store: Store): void;
};

const READ_OPERATIONS = [
  'BatchGetItem',
  'DescribeTable',
  'DescribeTimeToLive',
  'GetItem',
  'ListTables',
  'ListTagsOfResource',
  'Query',
  'Scan',
];
const WRITE_OPERATIONS = [
  'BatchWriteItem',
  'CreateTable',
  'DeleteItem',
  'DeleteTable',
  'PutItem',
  'TagResource',
  'UntagResource',
  'UpdateItem',
  'UpdateTable',
];

function lowerFirst(name: string): string {
  return name.charAt(0).toLowerCase() + name.slice(1);
}

const actions = new Map<string, { run: Action; validation: ActionValidation }>();
for (const operation of [...READ_OPERATIONS, ...WRITE_OPERATIONS]) {
  const name = lowerFirst(operation);
  actions.set(operation, {
    run: require(`dynalite/actions/${name}`) as Action,
    validation: require(`dynalite/validations/${name}`) as ActionValidation,
  });
}

/** Many readers or one writer; writers queue in arrival order. */
class ReadWriteLock {
  private readers = 0;
  private writing = false;
  private readonly queue: { write: boolean; start: () => void }[] = [];

  async run<T>(write: boolean, work: () => Promise<T>): Promise<T> {
    await new Promise<void>((resolve) => {
      this.queue.push({ write, start: resolve });
      this.drain();
    });
    try {
      return await work();
    } finally {
      if (write) this.writing = false;
      else this.readers -= 1;
      this.drain();
    }
  }

  private drain(): void {
    while (this.queue.length > 0 && !this.writing) {
      const next = this.queue[0]!;
      if (next.write && this.readers > 0) return;
      this.queue.shift();
      if (next.write) this.writing = true;
      else this.readers += 1;
      next.start();
      if (next.write) return;
    }
  }
}

function awsError(type: string, message: string, fields: JsonObject = {}): JsonProtocolError {
  return new JsonProtocolError(type, message, { fields });
}

/** dynalite's own failures carry their answer as statusCode and body; anything else stays as it is. */
function protocolError(error: unknown): unknown {
  const { statusCode, body, message } = error as DynaliteError;
  if (!statusCode || !body) return error;
  const { __type, message: bodyMessage, ...fields } = body;
  return new JsonProtocolError(String(__type), typeof bodyMessage === 'string' ? bodyMessage : message, {
    status: statusCode,
    fields,
  });
}

/**
 * DynamoDB nests attribute values 32 levels deep at most; each level is two JSON levels
 * (`{"M":{"a":…}}`, `{"L":[…]}`), under at most a few of the request's own. Deeper input is
 * refused as DynamoDB refuses it, before dynalite's recursive validation overflows its stack.
 */
const MAX_REQUEST_DEPTH = 2 * 32 + 8;

/** Whether `input` nests deeper than `limit` levels, found without recursion. */
function nestsDeeperThan(input: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[input, 0]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [value, depth] = next;
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= limit) return true;
    for (const child of Object.values(value)) pending.push([child, depth + 1]);
  }
  return false;
}

function validate(operation: string, input: unknown, store: Store): Record<string, unknown> {
  if (nestsDeeperThan(input, MAX_REQUEST_DEPTH))
    throw new JsonProtocolError(
      'com.amazon.coral.validate#ValidationException',
      'Nesting Levels have exceeded supported limits',
    );
  const { validation } = actions.get(operation)!;
  const data = validations.checkTypes(structuredClone(input), validation.types);
  validations.checkValidations(data, validation.types, validation.custom, store);
  return data;
}

function call<T>(fn: (cb: Callback<T>) => void): Promise<T> {
  return new Promise((resolve, reject) => fn((error, result) => (error ? reject(error) : resolve(result as T))));
}

const TRANSACTION_KINDS = {
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  ConditionCheck: 'DeleteItem',
} as const;
type TransactionKind = keyof typeof TRANSACTION_KINDS;

interface PreparedWrite {
  kind: TransactionKind;
  data: Record<string, unknown>;
  table: Table;
  key: string;
  keyAttributes: AttributeMap;
  returnOldOnFailure: boolean;
  before?: AttributeMap;
}

async function prepareTransaction(request: Record<string, unknown>, store: Store): Promise<PreparedWrite[]> {
  const items = request.TransactItems;
  if (!Array.isArray(items) || items.length === 0 || items.length > 100) {
    throw awsError('com.amazon.coral.validate#ValidationException', 'TransactItems must hold between 1 and 100 items');
  }
  const prepared: PreparedWrite[] = [];
  const seen = new Set<string>();
  for (const entry of items as Record<string, Record<string, unknown>>[]) {
    const kinds = Object.keys(entry) as TransactionKind[];
    const kind = kinds[0];
    if (kinds.length !== 1 || kind === undefined || !(kind in TRANSACTION_KINDS)) {
      throw awsError(
        'com.amazon.coral.validate#ValidationException',
        'Each TransactItem must hold exactly one of Put, Update, Delete, ConditionCheck',
      );
    }
    const input = entry[kind]!;
    if (kind === 'ConditionCheck' && typeof input.ConditionExpression !== 'string') {
      throw awsError('com.amazon.coral.validate#ValidationException', 'ConditionCheck requires a ConditionExpression');
    }
    const data = validate(TRANSACTION_KINDS[kind], input, store);
    const table = await call<Table>((cb) => store.getTable(String(data.TableName), cb));
    const keyAttributes = (kind === 'Put' ? data.Item : data.Key) as AttributeMap;
    const key = dynaliteDb.createKey(keyAttributes, table);
    const identity = `${table.TableName}\u0000${key}`;
    if (seen.has(identity)) {
      throw awsError(
        'com.amazon.coral.validate#ValidationException',
        'Transaction request cannot include multiple operations on one item',
      );
    }
    seen.add(identity);
    prepared.push({
      kind,
      data,
      table,
      key,
      keyAttributes,
      returnOldOnFailure: input.ReturnValuesOnConditionCheckFailure === 'ALL_OLD',
    });
  }
  return prepared;
}

async function transactWriteItems(request: Record<string, unknown>, store: Store): Promise<Record<string, unknown>> {
  const writes = await prepareTransaction(request, store);
  for (const write of writes) {
    write.before = await call<AttributeMap | undefined>((cb) =>
      store.getItemDb(write.table.TableName).get(write.key, (error, item) => {
        if (error && error.name !== 'NotFoundError') cb(error);
        else cb(null, item);
      }),
    );
  }
  const reasons = writes.map((write) => {
    const failure = dynaliteDb.checkConditional(write.data, write.before);
    if (!failure) return { Code: 'None' };
    return {
      Code: 'ConditionalCheckFailed',
      Message: 'The conditional request failed',
      ...(write.returnOldOnFailure && write.before ? { Item: write.before } : {}),
    };
  });
  if (reasons.some((reason) => reason.Code !== 'None')) {
    const summary = reasons.map((reason) => reason.Code).join(', ');
    throw awsError(
      'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
      `Transaction cancelled, please refer cancellation reasons for specific reasons [${summary}]`,
      {
        CancellationReasons: reasons,
      },
    );
  }
  const applied: PreparedWrite[] = [];
  // Asked for (the cost bench): DynamoDB charges a transaction's items twice their size in write units.
  const measured = request.ReturnConsumedCapacity === 'TOTAL' || request.ReturnConsumedCapacity === 'INDEXES';
  let writeUnits = 0;
  try {
    for (const write of writes) {
      if (write.kind === 'ConditionCheck') {
        writeUnits += 2 * Math.max(1, Math.ceil(itemBytes(write.before) / 1024));
        continue;
      }
      const data = measured ? { ...write.data, ReturnConsumedCapacity: 'TOTAL' } : write.data;
      const result = await call<{ ConsumedCapacity?: { CapacityUnits?: number } }>((cb) =>
        actions.get(TRANSACTION_KINDS[write.kind])!.run(store, data, cb),
      );
      writeUnits += 2 * (result?.ConsumedCapacity?.CapacityUnits ?? 1);
      applied.push(write);
    }
  } catch (error) {
    for (const write of applied.reverse()) {
      const TableName = write.table.TableName;
      if (write.before) {
        await call((cb) =>
          actions.get('PutItem')!.run(store, validate('PutItem', { TableName, Item: write.before }, store), cb),
        );
      } else {
        await call((cb) =>
          actions
            .get('DeleteItem')!
            .run(store, validate('DeleteItem', { TableName, Key: write.keyAttributes }, store), cb),
        );
      }
    }
    throw error;
  }
  const TableName = writes[0]!.table.TableName;
  return measured
    ? { ConsumedCapacity: [{ TableName, CapacityUnits: writeUnits, WriteCapacityUnits: writeUnits }] }
    : {};
}

/** An item's size as DynamoDB counts it for capacity (names and values), by dynalite's own measure. */
function itemBytes(item: AttributeMap | undefined): number {
  return item === undefined ? 0 : dynaliteDb.itemSize(item);
}

export interface LocalDynamoDb {
  readonly endpoint: string;
  close(): Promise<void>;
}

export interface LocalDynamoDbOptions {
  /** LevelDB folder; in memory when omitted. */
  readonly path?: string;
  readonly port?: number;
}

export async function startLocalDynamoDb(options: LocalDynamoDbOptions = {}): Promise<LocalDynamoDb> {
  const store = dynaliteDb.create({ path: options.path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  const lock = new ReadWriteLock();

  const withDynaliteErrors =
    (run: JsonOperation): JsonOperation =>
    async (input, request) => {
      try {
        return await run(input, request);
      } catch (error) {
        throw protocolError(error);
      }
    };
  const operations: Record<string, JsonOperation> = {
    TransactWriteItems: withDynaliteErrors((input) => lock.run(true, () => transactWriteItems(input, store))),
  };
  for (const [operation, action] of actions) {
    operations[operation] = withDynaliteErrors((input) => {
      const data = validate(operation, input, store);
      return lock.run(WRITE_OPERATIONS.includes(operation), () => call((cb) => action.run(store, data, cb)));
    });
  }

  const server = await startJsonProtocolServer({
    name: 'DynamoDB',
    targetPrefix: 'DynamoDB_20120810',
    jsonVersion: '1.0',
    operations,
    internalErrorType: 'com.amazonaws.dynamodb.v20120810#InternalServerError',
    port: options.port,
  });
  return {
    endpoint: server.endpoint,
    async close() {
      await server.close();
      // Closing the server drops its connections, not the operations they started: a Query
      // still reading would read a closed store and throw outside any request. Taking the lock
      // to write waits for every operation already under it or queued for it.
      await lock.run(
        true,
        () =>
          new Promise<void>((resolve, reject) =>
            store.lifecycleManager.gracefulClose((error) => (error ? reject(error) : resolve())),
          ),
      );
    },
  };
}

import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { dynamoDocumentClient } from '../aws/clients';
import { config } from '../config';
import { versionConflict } from '../errors/app-error';
import {
  conditionExpressionsOf,
  expressionsOf,
  updateExpressionsOf,
  type Changes,
  type Condition,
} from './expressions';
import type { ItemKey } from './keys';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** How a transaction's write is conditioned: `returnOld` asks for the item as it was when the condition failed. */
export interface TransactOptions {
  readonly when?: Condition;
  readonly returnOld?: boolean;
}

const returning = (returnOld: boolean | undefined) =>
  returnOld ? { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const } : {};
const conditioned = ({ when, returnOld }: TransactOptions) => ({
  ...returning(returnOld),
  ...expressionsOf({ condition: when }),
});

/** The writes a transaction is made of; the key is the item's, `item` its other attributes. */
export const tx = {
  put: (key: ItemKey, item: Record<string, unknown>, options: TransactOptions = {}): TransactItem => ({
    Put: { TableName: config.tableName, Item: { ...item, ...key }, ...conditioned(options) },
  }),
  update: (key: ItemKey, changes: Changes, options: TransactOptions = {}): TransactItem => ({
    Update: {
      TableName: config.tableName,
      Key: key,
      ...returning(options.returnOld),
      ...updateExpressionsOf(changes, options.when),
    },
  }),
  delete: (key: ItemKey, options: TransactOptions = {}): TransactItem => ({
    Delete: { TableName: config.tableName, Key: key, ...conditioned(options) },
  }),
  /** No write: the transaction commits only while `when` holds on this item. */
  check: (key: ItemKey, when: Condition, options: { readonly returnOld?: boolean } = {}): TransactItem => ({
    ConditionCheck: {
      TableName: config.tableName,
      Key: key,
      ...returning(options.returnOld),
      ...conditionExpressionsOf(when),
    },
  }),
};

/** Why one item of a cancelled transaction failed, with the item as it was (ALL_OLD). */
export interface CancellationReason {
  readonly code: string;
  readonly item: Record<string, unknown> | undefined;
}

export type TransactionOutcome =
  { readonly committed: true } | { readonly committed: false; readonly reasons: readonly CancellationReason[] };

/** Attempts of a transaction that DynamoDB cancelled only because another one held its items. */
const CONFLICT_ATTEMPTS = 4;

/** A short pause that grows with each attempt, randomised so that colliding writers spread out. */
const conflictPause = (attempt: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));

/**
 * Runs a conditional transaction. A cancellation is an expected outcome (a condition did not
 * hold) and is returned, not thrown; the caller maps each reason to its catalogue code.
 * DynamoDB also cancels a transaction whose items another transaction is writing at that
 * moment (TransactionConflict, with no condition failed): that is tried again a few times,
 * then answered as the conflict it is (10-1006, 409), never as a server error.
 */
export async function transactWrite(items: TransactItem[]): Promise<TransactionOutcome> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await dynamoDocumentClient().send(new TransactWriteCommand({ TransactItems: items }));
      return { committed: true };
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const reasons = (error.CancellationReasons ?? []).map((reason) => ({
        code: reason.Code ?? 'None',
        item: reason.Item ? unmarshall(reason.Item) : undefined,
      }));
      if (reasons.some((reason) => reason.code === 'ConditionalCheckFailed')) return { committed: false, reasons };
      if (!reasons.some((reason) => reason.code === 'TransactionConflict')) throw error;
      if (attempt >= CONFLICT_ATTEMPTS) throw versionConflict({ cause: error });
      await conflictPause(attempt);
    }
  }
}

export function failedAt(outcome: TransactionOutcome, index: number): CancellationReason | undefined {
  if (outcome.committed) return undefined;
  const reason = outcome.reasons[index];
  return reason?.code === 'ConditionalCheckFailed' ? reason : undefined;
}

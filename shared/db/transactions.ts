import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { dynamoDocumentClient } from '../aws/clients';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** Why one item of a cancelled transaction failed, with the item as it was (ALL_OLD). */
export interface CancellationReason {
  readonly code: string;
  readonly item: Record<string, unknown> | undefined;
}

export type TransactionOutcome = { readonly committed: true } | { readonly committed: false; readonly reasons: readonly CancellationReason[] };

/**
 * Runs a conditional transaction. A cancellation is an expected outcome (a condition did not
 * hold) and is returned, not thrown; the caller maps each reason to its catalogue code.
 */
export async function transactWrite(items: TransactItem[]): Promise<TransactionOutcome> {
  try {
    await dynamoDocumentClient().send(new TransactWriteCommand({ TransactItems: items }));
    return { committed: true };
  } catch (error) {
    if (!(error instanceof TransactionCanceledException)) throw error;
    const reasons = (error.CancellationReasons ?? []).map((reason) => ({
      code: reason.Code ?? 'None',
      item: reason.Item ? unmarshall(reason.Item as Record<string, AttributeValue>) : undefined,
    }));
    if (!reasons.some((reason) => reason.code === 'ConditionalCheckFailed')) throw error;
    return { committed: false, reasons };
  }
}

export function failedAt(outcome: TransactionOutcome, index: number): CancellationReason | undefined {
  if (outcome.committed) return undefined;
  const reason = outcome.reasons[index];
  return reason?.code === 'ConditionalCheckFailed' ? reason : undefined;
}

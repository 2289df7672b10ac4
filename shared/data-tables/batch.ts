import { isAppError } from '../errors/app-error';

/** A refusal of one item of a batch, as the item's result shows it. */
export function batchItemError(error: unknown): { code: string; status: number; message: string } {
  if (!isAppError(error)) throw error;
  return { code: error.code, status: error.status, message: error.message };
}

import { AppError, isAppError } from '../../errors/app-error';
import { errorCatalogue, type ErrorCode } from '../../errors/catalogue';

/**
 * The messages between an engine process and its parent (engine-process.ts, engine-child.ts),
 * sent over Node's IPC channel with the structured-clone serialization.
 */

/** Parent to child: run task `task` on `input`; `id` names the answers. */
export interface TaskRequest {
  readonly id: number;
  readonly task: string;
  readonly input: unknown;
}

/** A catalogue error as it crosses the process boundary (its class does not). */
export interface WireError {
  readonly code: ErrorCode;
  readonly message: string;
  readonly status: number;
  readonly extraDetails?: Readonly<Record<string, unknown>>;
}

/** Child to parent: an event of a running task, its result, or its failure; `cpuSeconds` is the child's CPU for the task. */
export type TaskMessage =
  | { readonly kind: 'ready' }
  | { readonly id: number; readonly kind: 'event'; readonly event: unknown }
  | { readonly id: number; readonly kind: 'result'; readonly result: unknown; readonly cpuSeconds: number }
  | { readonly id: number; readonly kind: 'error'; readonly error: WireError | null; readonly cpuSeconds: number };

/** The failure as it can be sent: a catalogue error whole, anything else as none (the parent answers 10-500). */
export function toWire(error: unknown): WireError | null {
  if (!isAppError(error)) return null;
  return { code: error.code, message: error.message, status: error.status, extraDetails: error.extraDetails };
}

/** The AppError a WireError stands for, with the message it had in the child. */
export function fromWire(wire: WireError | null, fallbackCause: string): AppError {
  if (wire === null || !Object.hasOwn(errorCatalogue, wire.code)) {
    return new AppError('10-500', { cause: new Error(fallbackCause) });
  }
  return new AppError(wire.code, { extraDetails: wire.extraDetails, status: wire.status, message: wire.message });
}

/** Whether `value` is a request of the parent (what the child accepts from its channel). */
export function isTaskRequest(value: unknown): value is TaskRequest {
  if (typeof value !== 'object' || value === null) return false;
  const { id, task } = value as Record<string, unknown>;
  return typeof id === 'number' && typeof task === 'string';
}

/**
 * Waiting for the service's jobs: imports, table and node schema analyses, node runs, the three
 * kinds of export and transfers. Each is polled at its status resource until it ends; progress
 * (stage, percent, rows, bytes) goes to a callback on every change, and an AbortSignal stops the
 * wait (not the job: `POST .../cancel` does that).
 */
import { ok, type DpsClient } from './client.js';
import { JobFailedError } from './problem.js';
import { sleep } from './transport.js';

/** A job, by the resource that shows its status. */
export type JobRef =
  | { readonly kind: 'import'; readonly dataTableId: number; readonly versionNumber: number }
  | { readonly kind: 'table-analysis'; readonly dataTableId: number; readonly versionNumber: number }
  | { readonly kind: 'run'; readonly datasetId: number; readonly versionNumber: number; readonly nodeId: number }
  | {
      readonly kind: 'node-analysis';
      readonly datasetId: number;
      readonly versionNumber: number;
      readonly nodeId: number;
    }
  | { readonly kind: 'export'; readonly exportId: number }
  | { readonly kind: 'direct-export'; readonly jobId: string }
  | { readonly kind: 'multipart-export'; readonly jobId: string }
  | { readonly kind: 'transfer'; readonly transferId: number };

export type JobStatus = 'PENDING' | 'IN_PROGRESS' | 'COMPLETED' | 'FAILED' | 'ABORTED';

/** What one poll saw. */
export interface JobProgressEvent {
  readonly status: JobStatus;
  /** QUEUED, READING, LOADING, WRITING, ANALYSING or DONE (absent where the job does not say). */
  readonly stage?: string;
  readonly percent?: number;
  readonly rows?: number;
  /** Rows the job will reach in all, when it knows (transfers). */
  readonly rowsTotal?: number;
  readonly bytes?: number;
}

export interface WaitOptions {
  readonly onProgress?: (event: JobProgressEvent) => void;
  /** Stops waiting (the job goes on): the wait rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /** Between polls, in ms (default 1000). */
  readonly intervalMs?: number;
}

/** A job that ended COMPLETED: its resource as last read. */
export interface JobOutcome {
  readonly status: 'COMPLETED';
  readonly resource: unknown;
}

interface Execution {
  readonly status: JobStatus;
  readonly progress?: {
    stage?: string;
    percent?: number;
    rows?: number;
    bytes_read?: number;
    bytes_written?: number;
  };
  readonly error?: { code: string; message: string };
}

interface Seen {
  readonly event: JobProgressEvent;
  readonly error?: { readonly code: string; readonly message: string };
  readonly resource: unknown;
}

function fromExecution(execution: Execution | null | undefined, resource: unknown, rowsTotal?: number): Seen {
  const progress = execution?.progress ?? {};
  const bytes = progress.bytes_written ?? progress.bytes_read;
  return {
    event: {
      status: execution?.status ?? 'PENDING',
      ...(progress.stage === undefined ? {} : { stage: progress.stage }),
      ...(progress.percent === undefined ? {} : { percent: progress.percent }),
      ...(progress.rows === undefined ? {} : { rows: progress.rows }),
      ...(rowsTotal === undefined ? {} : { rowsTotal }),
      ...(bytes === undefined ? {} : { bytes }),
    },
    ...(execution?.error ? { error: execution.error } : {}),
    resource,
  };
}

/** Reads the job's status resource once. */
async function read(client: DpsClient, job: JobRef, signal: AbortSignal | undefined): Promise<Seen> {
  const { api } = client;
  const init = signal ? { signal } : {};
  switch (job.kind) {
    case 'import':
    case 'table-analysis': {
      const path = { data_table_id: job.dataTableId, version_number: job.versionNumber };
      const body =
        job.kind === 'import'
          ? await ok(api.GET('/data-tables/{data_table_id}/versions/{version_number}', { params: { path }, ...init }))
          : await ok(
              api.GET('/data-tables/{data_table_id}/versions/{version_number}/schema-analysis', {
                params: { path },
                ...init,
              }),
            );
      return fromExecution(body.execution, body);
    }
    case 'run':
    case 'node-analysis': {
      const path = { dataset_id: job.datasetId, version_number: job.versionNumber, node_id: job.nodeId };
      const body =
        job.kind === 'run'
          ? await ok(
              api.GET('/datasets/{dataset_id}/versions/{version_number}/nodes/{node_id}/run-status', {
                params: { path },
                ...init,
              }),
            )
          : await ok(
              api.GET('/datasets/{dataset_id}/versions/{version_number}/nodes/{node_id}/schema-analysis', {
                params: { path },
                ...init,
              }),
            );
      return fromExecution(body.execution as Execution | null | undefined, body);
    }
    case 'export': {
      const body = await ok(
        api.GET('/exports/{export_id}', { params: { path: { export_id: job.exportId } }, ...init }),
      );
      return fromExecution(body.execution, body);
    }
    case 'transfer': {
      const body = await ok(
        api.GET('/transfers/{transfer_id}', { params: { path: { transfer_id: job.transferId } }, ...init }),
      );
      const seen = fromExecution(body.execution, body, body.rows_total ?? undefined);
      return { ...seen, event: { ...seen.event, rows: body.rows_sent ?? seen.event.rows } } as Seen;
    }
    case 'direct-export': {
      const body = await ok(api.GET('/exports/direct/{job_id}', { params: { path: { job_id: job.jobId } }, ...init }));
      const { status, error_code: code, error_cause: message } = body.status;
      return { event: { status }, resource: body, ...(code ? { error: { code, message: message ?? '' } } : {}) };
    }
    case 'multipart-export': {
      const body = await ok(
        api.GET('/exports/multi-part/{job_id}', { params: { path: { job_id: job.jobId } }, ...init }),
      );
      const { status, error_code: code, error } = body;
      return { event: { status }, resource: body, ...(code ? { error: { code, message: error ?? '' } } : {}) };
    }
  }
}

/**
 * Polls `job` until it ends. Resolves with its resource when COMPLETED; rejects with a
 * JobFailedError (the job's code and message) when FAILED or ABORTED, with a ProblemError when
 * a read is refused, and with the signal's reason when aborted.
 */
export async function waitForJob(client: DpsClient, job: JobRef, options: WaitOptions = {}): Promise<JobOutcome> {
  const { signal, onProgress, intervalMs = 1000 } = options;
  let last = '';
  for (;;) {
    signal?.throwIfAborted();
    const seen = await read(client, job, signal);
    const key = JSON.stringify(seen.event);
    if (key !== last) onProgress?.(seen.event);
    last = key;
    const { status } = seen.event;
    if (status === 'COMPLETED') return { status, resource: seen.resource };
    if (status === 'FAILED' || status === 'ABORTED')
      throw new JobFailedError(
        status,
        seen.error?.code ?? (status === 'ABORTED' ? '10-444' : '10-500'),
        seen.error?.message ?? '',
        seen.resource,
      );
    await sleep(intervalMs, signal);
  }
}

/**
 * Query jobs of the BigQuery fake, as @google-cloud/bigquery 8 drives them: jobs.insert
 * (POST /projects/{p}/jobs), jobs.get (GET …/jobs/{id}), jobs.cancel (POST …/jobs/{id}/cancel)
 * and jobs.getQueryResults (GET …/queries/{id}, pages chained by pageToken). The one query it
 * runs is `SELECT * FROM` one table or view (each identifier backtick-quoted); anything else
 * fails the job with invalidQuery, as a view whose SQL no longer compiles does. Load jobs
 * (bigquery-loads.ts) arrive as uploads and write through the sink `storeLoadsWith` names.
 */
import type { ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { loadTable, parseLoadUpload, type LoadOutcome } from './bigquery-loads';
import { encodeRow, type FakeTable } from './bigquery-tables';
import { apiError, sendJson } from './google-auth';

const QUERY_SCOPES = new Set([
  'https://www.googleapis.com/auth/bigquery',
  'https://www.googleapis.com/auth/cloud-platform',
]);

/** What a job may read: the table, or BigQuery's errorResult for it. */
export type Resolved =
  { readonly table: FakeTable } | { readonly error: { readonly reason: string; readonly message: string } };

/** Where a load job's table goes: undefined when stored, BigQuery's errorResult otherwise (a missing dataset). */
export type LoadSink = (
  project: string,
  dataset: string,
  table: string,
  value: FakeTable,
) => { readonly reason: string; readonly message: string } | undefined;

interface Job {
  readonly type: 'QUERY' | 'LOAD';
  readonly project: string;
  readonly id: string;
  readonly location: string;
  readonly result: Resolved;
  /** jobs.get answers RUNNING this many more times. */
  pollsLeft: number;
  cancelled: boolean;
}

export interface JobCaller {
  readonly principal: string;
  readonly scopes: readonly string[];
}

export class FakeQueryJobs {
  private readonly jobs = new Map<string, Job>();
  /** Project → service accounts that may run jobs in it (bigquery.jobs.create). */
  private readonly runners = new Map<string, Set<string>>();
  /** Times jobs.get reports a new job RUNNING before DONE. */
  runningPolls = 1;
  /** Rows a result page holds at most. */
  pageRows = 1000;
  /** While set, every load job ends DONE with this errorResult and writes nothing (BigQuery rejecting the file). */
  failLoads: { readonly reason: string; readonly message: string } | undefined;
  private sink: LoadSink | undefined;

  /**
   * @param resolve the table `project.dataset.table` names, as the caller may read it (a view's
   * rows included), or BigQuery's errorResult for it.
   */
  constructor(
    private readonly resolve: (project: string, dataset: string, table: string, principal: string) => Resolved,
  ) {}

  allowJobs(project: string, email: string): void {
    this.runners.set(project, new Set([...(this.runners.get(project) ?? []), email]));
  }

  /** Where load jobs store their tables (the fake's datasets). */
  storeLoadsWith(sink: LoadSink): void {
    this.sink = sink;
  }

  /** Jobs cancelled so far. */
  get cancelledJobs(): number {
    return [...this.jobs.values()].filter((job) => job.cancelled).length;
  }

  /** Serves a jobs request; false when `path` is none. */
  handle(
    method: string,
    path: string,
    query: URLSearchParams,
    body: string,
    caller: JobCaller,
    response: ServerResponse,
  ): boolean {
    const insert = /^\/bigquery\/v2\/projects\/([^/]+)\/jobs$/.exec(path);
    const upload = /^\/upload\/bigquery\/v2\/projects\/([^/]+)\/jobs$/.exec(path);
    if (method === 'POST' && upload) {
      this.load(decodeURIComponent(upload[1]!), body, caller, response);
      return true;
    }
    const job = /^\/bigquery\/v2\/projects\/([^/]+)\/(jobs|queries)\/([^/]+?)(\/cancel)?$/.exec(path);
    if (method === 'POST' && insert) this.insert(decodeURIComponent(insert[1]!), body, caller, response);
    else if (job)
      this.serveJob(
        `${decodeURIComponent(job[1]!)}:${decodeURIComponent(job[3]!)}`,
        job[2] === 'queries' ? 'results' : job[4] ? 'cancel' : 'get',
        query,
        response,
      );
    else return false;
    return true;
  }

  private serveJob(
    key: string,
    action: 'get' | 'cancel' | 'results',
    query: URLSearchParams,
    response: ServerResponse,
  ): void {
    const found = this.jobs.get(key);
    if (!found) return apiError(response, 404, 'notFound', `Not found: Job ${key}`, 'NOT_FOUND');
    switch (action) {
      case 'cancel':
        found.cancelled = true;
        return sendJson(response, 200, { kind: 'bigquery#jobCancelResponse', job: this.resource(found) });
      case 'get':
        return sendJson(response, 200, this.resource(found, true));
      case 'results':
        return this.results(found, query, response);
    }
  }

  /** Refuses a caller that may not run jobs in the project (scope, then bigquery.jobs.create); true when it did. */
  private refused(project: string, caller: JobCaller, response: ServerResponse): boolean {
    if (!caller.scopes.some((scope) => QUERY_SCOPES.has(scope))) {
      apiError(
        response,
        403,
        'insufficientPermissions',
        'Request had insufficient authentication scopes.',
        'PERMISSION_DENIED',
      );
      return true;
    }
    if (!this.runners.get(project)?.has(caller.principal)) {
      apiError(
        response,
        403,
        'accessDenied',
        `Access Denied: Project ${project}: User does not have bigquery.jobs.create permission in project ${project}.`,
        'PERMISSION_DENIED',
      );
      return true;
    }
    return false;
  }

  /** A load job: the table is written when the job is created, whole, or not at all when it fails. */
  private load(project: string, body: string, caller: JobCaller, response: ServerResponse): void {
    if (this.refused(project, caller, response)) return;
    const upload = parseLoadUpload(body);
    if (!upload) return apiError(response, 400, 'invalid', 'Invalid multipart upload.', 'INVALID_ARGUMENT');
    const target = upload.request.configuration?.load?.destinationTable ?? {};
    const [dataset, table] = [target.datasetId ?? '', target.tableId ?? ''];
    const existing = this.resolve(target.projectId ?? project, dataset, table, caller.principal);
    let outcome: LoadOutcome = this.failLoads
      ? { error: this.failLoads }
      : loadTable(
          upload.request.configuration?.load ?? {},
          upload.data,
          'table' in existing ? existing.table : undefined,
        );
    if ('table' in outcome) {
      const stored = this.sink
        ? this.sink(target.projectId ?? project, dataset, table, outcome.table)
        : { reason: 'backendError', message: 'the fake has no table sink' };
      if (stored) outcome = { error: stored };
    }
    const job = this.created('LOAD', project, upload.request.jobReference, outcome);
    sendJson(response, 200, this.resource(job));
  }

  private created(
    type: Job['type'],
    project: string,
    reference: { readonly jobId?: string; readonly location?: string } | undefined,
    result: Resolved,
  ): Job {
    const job: Job = {
      type,
      project,
      id: reference?.jobId ?? randomUUID(),
      location: reference?.location ?? 'US',
      result,
      pollsLeft: this.runningPolls,
      cancelled: false,
    };
    this.jobs.set(`${project}:${job.id}`, job);
    return job;
  }

  private insert(project: string, body: string, caller: JobCaller, response: ServerResponse): void {
    if (this.refused(project, caller, response)) return;
    const request = JSON.parse(body || '{}') as {
      configuration?: { query?: { query?: string } };
      jobReference?: { jobId?: string; location?: string };
    };
    const sql = request.configuration?.query?.query ?? '';
    const target = /^SELECT \* FROM `([^`]+)`\.`([^`]+)`\.`([^`]+)`$/.exec(sql);
    const result: Resolved = target
      ? this.resolve(target[1]!, target[2]!, target[3]!, caller.principal)
      : { error: { reason: 'invalidQuery', message: `Syntax error: Unexpected input at [1:1]` } };
    const job = this.created('QUERY', project, request.jobReference, result);
    sendJson(response, 200, this.resource(job));
  }

  /** The job resource; `poll` counts a jobs.get towards the job finishing. */
  private resource(job: Job, poll = false): Record<string, unknown> {
    const done = job.cancelled || job.pollsLeft <= 0;
    if (poll && !done) job.pollsLeft -= 1;
    const error = 'error' in job.result ? job.result.error : undefined;
    return {
      kind: 'bigquery#job',
      id: `${job.project}:${job.location}.${job.id}`,
      jobReference: { projectId: job.project, jobId: job.id, location: job.location },
      configuration: { jobType: job.type },
      status: done
        ? { state: 'DONE', ...(error ? { errorResult: { ...error, location: 'query' }, errors: [error] } : {}) }
        : { state: 'RUNNING' },
    };
  }

  private results(job: Job, query: URLSearchParams, response: ServerResponse): void {
    const reference = { projectId: job.project, jobId: job.id, location: job.location };
    if (job.pollsLeft > 0)
      return sendJson(response, 200, {
        kind: 'bigquery#getQueryResultsResponse',
        jobReference: reference,
        jobComplete: false,
      });
    if ('error' in job.result)
      return apiError(response, 400, job.result.error.reason, job.result.error.message, 'INVALID_ARGUMENT');
    const { schema, rows } = job.result.table;
    const token = query.get('pageToken');
    const start = token === null ? 0 : Number(Buffer.from(token, 'base64url').toString('utf8'));
    if (!Number.isSafeInteger(start) || start < 0 || start > rows.length)
      return apiError(response, 400, 'invalid', 'Invalid page token.', 'INVALID_ARGUMENT');
    const end = Math.min(rows.length, start + Math.min(Number(query.get('maxResults') ?? rows.length), this.pageRows));
    const int64Timestamps = query.get('formatOptions.useInt64Timestamp') === 'true';
    sendJson(response, 200, {
      kind: 'bigquery#getQueryResultsResponse',
      jobReference: reference,
      jobComplete: true,
      schema: { fields: schema },
      totalRows: String(rows.length),
      rows: rows.slice(start, end).map((row) => encodeRow(schema, row, int64Timestamps)),
      ...(end < rows.length ? { pageToken: Buffer.from(String(end)).toString('base64url') } : {}),
    });
  }
}

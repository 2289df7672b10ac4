/**
 * A protocol-level fake of the BigQuery REST API (v2) on 127.0.0.1, as @google-cloud/bigquery 8
 * speaks it: datasets.list and datasets.get (GET /bigquery/v2/projects/{p}/datasets[/{d}]). The Google token
 * services (google-auth.ts) are mounted on the same server. Access is per service account
 * and dataset (readers); a caller without access gets 403 accessDenied as BigQuery answers,
 * a missing dataset 404 notFound. `inject` makes the next matching request fail (503, hang).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { GoogleAuthFake, apiError, sendJson } from './google-auth';

/** unavailable: 503 backendError; hang: no answer. */
export type BigQueryFailure = 'unavailable' | 'hang';

interface Dataset {
  readonly readers: Set<string>;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export class BigQueryFake {
  readonly auth: GoogleAuthFake;
  /** Paths of the API requests received, in order. */
  readonly requests: string[] = [];
  private readonly datasets = new Map<string, Dataset>();
  /** Project → service accounts that may list its datasets. */
  private readonly listers = new Map<string, Set<string>>();
  private readonly injections: { path: RegExp; failure: BigQueryFailure; remaining: number }[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly server = createServer((request, response) => void this.serve(request, response));

  private constructor(private readonly port: number) {
    this.auth = new GoogleAuthFake(this.endpoint);
  }

  static async start(): Promise<BigQueryFake> {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const fake = new BigQueryFake(port);
    fake.server.on('connection', (socket) => {
      fake.sockets.add(socket);
      socket.on('close', () => fake.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => fake.server.listen(port, '127.0.0.1', () => resolve()));
    return fake;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The settings that point the connectors at this fake. */
  get environment(): Record<string, string> {
    return { BIGQUERY_API_ENDPOINT: this.endpoint, GOOGLE_STS_ENDPOINT: `${this.endpoint}/v1/token`, GOOGLE_IAM_CREDENTIALS_ENDPOINT: this.endpoint };
  }

  get allowOutbound(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** A dataset `project.dataset` that the `readers` (service-account e-mails) may read. */
  addDataset(project: string, dataset: string, readers: readonly string[]): void {
    this.datasets.set(`${project}.${dataset}`, { readers: new Set(readers) });
  }

  /** Lets a service account list the project's datasets (bigquery.datasets.list on the project). */
  allowDatasetListing(project: string, email: string): void {
    this.listers.set(project, new Set([...(this.listers.get(project) ?? []), email]));
  }

  /** The next `times` (1) requests whose path matches fail with `failure`. */
  inject(failure: BigQueryFailure, path: RegExp, times = 1): void {
    this.injections.push({ path, failure, remaining: times });
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const method = request.method ?? 'GET';
    const url = new URL(request.url ?? '/', this.endpoint);
    const body = await readBody(request);
    if (this.auth.handle(method, url.pathname, request.headers, body, response)) return;
    this.requests.push(url.pathname);
    const injected = this.injections.find((candidate) => candidate.remaining > 0 && candidate.path.test(url.pathname));
    if (injected) {
      injected.remaining -= 1;
      if (injected.failure === 'hang') return;
      return apiError(response, 503, 'backendError', 'Error encountered during execution. Retrying may solve the problem.', 'UNAVAILABLE');
    }
    const principal = this.auth.principalOf(request.headers.authorization);
    if (!principal) return apiError(response, 401, 'unauthorized', 'Request is missing required authentication credential.', 'UNAUTHENTICATED');
    const listing = /^\/bigquery\/v2\/projects\/([^/]+)\/datasets$/.exec(url.pathname);
    if (method === 'GET' && listing) return this.listDatasets(decodeURIComponent(listing[1]!), principal, response);
    const match = /^\/bigquery\/v2\/projects\/([^/]+)\/datasets\/([^/]+)$/.exec(url.pathname);
    if (method !== 'GET' || !match) return apiError(response, 404, 'notFound', 'Not found', 'NOT_FOUND');
    const [project, datasetId] = [decodeURIComponent(match[1]!), decodeURIComponent(match[2]!)];
    const dataset = this.datasets.get(`${project}.${datasetId}`);
    if (!dataset) return apiError(response, 404, 'notFound', `Not found: Dataset ${project}:${datasetId}`, 'NOT_FOUND');
    if (!dataset.readers.has(principal)) {
      return apiError(response, 403, 'accessDenied', `Access Denied: Dataset ${project}:${datasetId}: Permission bigquery.datasets.get denied`, 'PERMISSION_DENIED');
    }
    sendJson(response, 200, {
      kind: 'bigquery#dataset',
      id: `${project}:${datasetId}`,
      datasetReference: { projectId: project, datasetId },
      location: 'US',
    });
  }

  private listDatasets(project: string, principal: string, response: ServerResponse): void {
    if (!this.listers.get(project)?.has(principal)) {
      return apiError(response, 403, 'accessDenied', `Access Denied: Project ${project}: Permission bigquery.datasets.list denied`, 'PERMISSION_DENIED');
    }
    const datasets = [...this.datasets.keys()]
      .filter((key) => key.startsWith(`${project}.`))
      .map((key) => ({ kind: 'bigquery#dataset', id: key.replace('.', ':'), datasetReference: { projectId: project, datasetId: key.slice(project.length + 1) } }));
    sendJson(response, 200, { kind: 'bigquery#datasetList', datasets });
  }
}

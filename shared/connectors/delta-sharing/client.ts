import * as z from 'zod';
import { AppError } from '../../errors/app-error';
import { requestClientCredentialsToken } from '../oauth/client-credentials';
import { outboundRequest, type OutboundResponse } from '../outbound-http';
import { deltaSharingHttpError, deltaSharingTransportError, unparsedAnswer } from './errors';
import { parseDeltaSharingProfile, type DeltaSharingProfile } from './profile';
import { parseDeltaSchema, type DeltaField } from './types';

/**
 * A client of the Delta Sharing protocol (delta-io PROTOCOL.md), written against the document:
 * no maintained TypeScript client exists (delta-io ships Python, Java/Scala and Rust ones).
 * Every call goes through the outbound guard (outboundRequest) and is bounded by the
 * connector timeout; failures map to 30-30xx (errors.ts). Listings follow nextPageToken to
 * the end; query answers parse as NDJSON in the parquet response format, and an answer in
 * the delta format (tables with reader features such as deletion vectors) is refused with
 * 10-1000 rather than read wrongly.
 */

export interface TableRef {
  readonly share: string;
  readonly schema: string;
  readonly table: string;
}

export type ListedTable = TableRef;

export interface TableMetadata {
  readonly fields: readonly DeltaField[];
  readonly partitionColumns: readonly string[];
}

export interface SharedFile {
  readonly url: string;
  readonly id: string;
  readonly partitionValues: Readonly<Record<string, string | null>>;
  readonly size: number;
  /** When the URL stops working, ms since the epoch, when the server says. */
  readonly expirationTimestamp: number | undefined;
}

export interface QueryAnswer {
  /** The table version the files are of (the delta-table-version header). */
  readonly version: number;
  readonly metadata: TableMetadata;
  readonly files: readonly SharedFile[];
}

export interface QueryOptions {
  readonly limitHint?: number;
  /** Time travel: a table version, or an ISO 8601 UTC instant; at most one. */
  readonly version?: number;
  readonly timestamp?: string;
}

/** Items asked for per listing page; a server may answer fewer. */
const PAGE_SIZE = 500;
/** Most pages a listing follows: a server whose tokens never end is not answering a listing. */
const MAX_PAGES = 1000;
/** A query answer lists every file of the table: far larger than a token answer. */
const MAX_QUERY_ANSWER_BYTES = 256 * 1024 * 1024;
const CAPABILITIES = { 'delta-sharing-capabilities': 'responseformat=parquet' };

const PageItem = z.looseObject({ name: z.string(), schema: z.string().optional(), share: z.string().optional() });
type PageItem = z.output<typeof PageItem>;
const Page = z.object({
  items: z.array(PageItem).optional(),
  nextPageToken: z.string().optional().nullable(),
});

const ProtocolLine = z.object({ protocol: z.looseObject({ minReaderVersion: z.int().optional() }) });
const MetaDataLine = z.object({
  metaData: z.looseObject({ schemaString: z.string(), partitionColumns: z.array(z.string()) }),
});
const FileLine = z.object({
  file: z.looseObject({
    url: z.string(),
    id: z.string(),
    partitionValues: z.record(z.string(), z.string().nullable()),
    size: z.number(),
    expirationTimestamp: z.number().optional(),
  }),
});

const segment = (name: string) => encodeURIComponent(name);
const tablePath = (ref: TableRef) =>
  `shares/${segment(ref.share)}/schemas/${segment(ref.schema)}/tables/${segment(ref.table)}`;
export const shownTable = (ref: TableRef) => `${ref.share}.${ref.schema}.${ref.table}`;

interface Call {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly query?: Readonly<Record<string, string>>;
  readonly body?: unknown;
  readonly subject: string;
  /** A query pinned to a version or timestamp, whose 400 INVALID_PARAMETER_VALUE means the pin does not exist. */
  readonly pinned?: boolean;
  readonly signal?: AbortSignal;
  readonly maxAnswerBytes?: number;
}

export class DeltaSharingClient {
  private token: Promise<string> | undefined;

  private constructor(
    private readonly profile: DeltaSharingProfile,
    private readonly timeoutMs: number,
  ) {}

  /** A client of the profile (secret in clear); an empty secret is 30-3019. */
  static of(profileContent: string, timeoutMs: number): DeltaSharingClient {
    if (profileContent.trim() === '') throw new AppError('30-3019');
    return new DeltaSharingClient(parseDeltaSharingProfile(profileContent), timeoutMs);
  }

  get version(): 1 | 2 {
    return this.profile.version;
  }

  /** The bearer token of the profile, or one the OAuth token endpoint issues (30-3017 when it refuses). */
  private bearerToken(): Promise<string> {
    const credentials = this.profile.credentials;
    if (credentials.type === 'bearer_token') return Promise.resolve(credentials.bearerToken);
    this.token ??= requestClientCredentialsToken({
      tokenUrl: credentials.tokenEndpoint,
      clientId: credentials.clientId,
      clientSecret: credentials.clientSecret,
      scope: credentials.scope,
      timeoutMs: this.timeoutMs,
      field: 'auth.delta_sharing_profile_content.tokenEndpoint',
    }).then(
      (token) => token.accessToken,
      (error: unknown) => {
        if (error instanceof AppError && error.code === '30-1130') throw error;
        // The token endpoint's own code (30-12xx) says what failed; 30-3017 says where.
        const cause = error instanceof AppError ? { reason: error.message, code: error.code } : undefined;
        throw new AppError('30-3017', {
          params: [cause?.reason ?? 'the token endpoint failed'],
          cause: error,
          ...(cause ? { extraDetails: { cause_code: cause.code } } : {}),
        });
      },
    );
    return this.token;
  }

  private async call(call: Call): Promise<OutboundResponse> {
    const url = new URL(
      call.path,
      this.profile.endpoint.endsWith('/') ? this.profile.endpoint : `${this.profile.endpoint}/`,
    );
    for (const [name, value] of Object.entries(call.query ?? {})) url.searchParams.set(name, value);
    const token = await this.bearerToken();
    let response: OutboundResponse;
    try {
      response = await outboundRequest({
        method: call.method,
        url,
        headers: {
          authorization: `Bearer ${token}`,
          ...CAPABILITIES,
          ...(call.body === undefined ? {} : { 'content-type': 'application/json; charset=utf-8' }),
        },
        ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
        timeoutMs: this.timeoutMs,
        ...(call.signal ? { signal: call.signal } : {}),
        ...(call.maxAnswerBytes ? { maxAnswerBytes: call.maxAnswerBytes } : {}),
      });
    } catch (error) {
      throw deltaSharingTransportError(error, this.profile.endpoint);
    }
    if (response.status < 200 || response.status > 299) {
      const credentials = this.profile.credentials;
      throw deltaSharingHttpError({
        ...response,
        subject: call.subject,
        pinned: call.pinned === true,
        isRoot: call.path === 'shares',
        endpoint: this.profile.endpoint,
        expirationTime: credentials.type === 'bearer_token' ? credentials.expirationTime : undefined,
      });
    }
    return response;
  }

  /** Every item of a paged listing, following nextPageToken. */
  private async listAll(path: string, subject: string): Promise<PageItem[]> {
    const items: PageItem[] = [];
    let pageToken: string | undefined;
    for (let pages = 0; pages < MAX_PAGES; pages += 1) {
      const response = await this.call({
        method: 'GET',
        path,
        subject,
        query: { maxResults: String(PAGE_SIZE), ...(pageToken ? { pageToken } : {}) },
      });
      const page = Page.safeParse(parseJson(response.text));
      if (!page.success) throw unparsedAnswer(`the listing of ${subject} is not a page of items`);
      items.push(...(page.data.items ?? []));
      pageToken = page.data.nextPageToken || undefined;
      if (!pageToken) return items;
    }
    throw unparsedAnswer(`the listing of ${subject} did not end after ${MAX_PAGES} pages`);
  }

  async listShares(): Promise<string[]> {
    return (await this.listAll('shares', 'shares')).map((item) => item.name);
  }

  async listSchemas(share: string): Promise<string[]> {
    return (await this.listAll(`shares/${segment(share)}/schemas`, `share ${share}`)).map((item) => item.name);
  }

  /** Every table of a share, in every schema (the all-tables listing). */
  async listAllTables(share: string): Promise<ListedTable[]> {
    const items = await this.listAll(`shares/${segment(share)}/all-tables`, `share ${share}`);
    return items.map((item) => ({ share: item.share ?? share, schema: item.schema ?? '', table: item.name }));
  }

  async listTables(share: string, schema: string): Promise<ListedTable[]> {
    const items = await this.listAll(
      `shares/${segment(share)}/schemas/${segment(schema)}/tables`,
      `schema ${share}.${schema}`,
    );
    return items.map((item) => ({ share, schema, table: item.name }));
  }

  /** The table's current version (GET .../version, the delta-table-version header). */
  async tableVersion(ref: TableRef): Promise<number> {
    const response = await this.call({
      method: 'GET',
      path: `${tablePath(ref)}/version`,
      subject: `table ${shownTable(ref)}`,
    });
    return versionHeader(response);
  }

  async metadata(ref: TableRef): Promise<TableMetadata> {
    const response = await this.call({
      method: 'GET',
      path: `${tablePath(ref)}/metadata`,
      subject: `table ${shownTable(ref)}`,
    });
    return parseActions(response.text).metadata;
  }

  /** The table's files (POST .../query), at the latest version or the one pinned by version or timestamp. */
  async query(ref: TableRef, options: QueryOptions = {}, signal?: AbortSignal): Promise<QueryAnswer> {
    const body = {
      ...(options.limitHint === undefined ? {} : { limitHint: options.limitHint }),
      ...(options.version === undefined ? {} : { version: options.version }),
      ...(options.timestamp === undefined ? {} : { timestamp: options.timestamp }),
    };
    const pin =
      options.version !== undefined
        ? ` version ${options.version}`
        : options.timestamp !== undefined
          ? ` at ${options.timestamp}`
          : '';
    const response = await this.call({
      method: 'POST',
      path: `${tablePath(ref)}/query`,
      subject: `table ${shownTable(ref)}${pin}`,
      pinned: pin !== '',
      body,
      maxAnswerBytes: MAX_QUERY_ANSWER_BYTES,
      ...(signal ? { signal } : {}),
    });
    return { version: versionHeader(response), ...parseActions(response.text) };
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function versionHeader(response: OutboundResponse): number {
  const version = Number(response.headers['delta-table-version']);
  if (!Number.isSafeInteger(version) || version < 0) throw unparsedAnswer('the answer has no delta-table-version');
  return version;
}

/** The protocol, metaData and file actions of an NDJSON answer (parquet response format). */
function parseActions(text: string): { metadata: TableMetadata; files: SharedFile[] } {
  let metadata: TableMetadata | undefined;
  const files: SharedFile[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const action = parseJson(line);
    if (typeof action !== 'object' || action === null) throw unparsedAnswer('a line of the answer is not JSON');
    const protocol = ProtocolLine.safeParse(action);
    if (protocol.success) {
      if ('deltaProtocol' in protocol.data.protocol || (protocol.data.protocol.minReaderVersion ?? 1) > 1)
        throw new AppError('10-1000', {
          extraDetails: {
            reason: 'the table needs Delta reader features (such as deletion vectors) this import cannot apply',
          },
        });
      continue;
    }
    const meta = MetaDataLine.safeParse(action);
    if (meta.success) {
      metadata = {
        fields: parseDeltaSchema(meta.data.metaData.schemaString),
        partitionColumns: meta.data.metaData.partitionColumns,
      };
      continue;
    }
    const file = FileLine.safeParse(action);
    if (file.success) {
      const { url, id, partitionValues, size, expirationTimestamp } = file.data.file;
      files.push({ url, id, partitionValues, size, expirationTimestamp });
      continue;
    }
    // Other actions (endStreamAction, ...) carry nothing a snapshot read needs.
  }
  if (!metadata) throw unparsedAnswer('the answer has no table metadata');
  return { metadata, files };
}

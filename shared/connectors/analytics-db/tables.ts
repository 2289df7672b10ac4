import type { BigQuery } from '@google-cloud/bigquery';
import { config } from '../../config';
import { AppError, validationError } from '../../errors/app-error';
import { MAX_LISTED_TABLES, type TableDetails } from '../../model/table';
import type { GoogleCredentials } from '../cloud/token';
import { bounded, openAnalyticsDb } from './client';
import { analyticsDbTablesError } from './errors';

/**
 * The tables of an analytics_db connection, read with the read-only scope and nothing billed:
 * tables.list of the connection's dataset page by page (nextPageToken), or, when the
 * connection names no dataset, of every dataset of its project (datasets.list, paged too), in
 * the order BigQuery lists them. BigQuery's project is the table's database, its dataset the
 * schema. One table's details come from tables.get. Every call is bounded by
 * CONNECTOR_TIMEOUT_MS and made once.
 */

/** Tables (or datasets) asked for per page; BigQuery's own default is 50. */
const PAGE_SIZE = 1000;
/** BigQuery's dataset ids; anything else cannot name one (and must not reach a request path). */
const DATASET_ID = /^[A-Za-z0-9_]{1,1024}$/;
/** BigQuery's table ids: letters, marks, digits, connectors, dashes and spaces (Unicode L, M, N, Pc, Pd, Zs). */
const TABLE_ID = /^[\p{L}\p{M}\p{N}\p{Pc}\p{Pd}\p{Zs}]{1,1024}$/u;

export interface AnalyticsDbTablesInput {
  readonly credentials: GoogleCredentials;
  /** The connection's dataset; null lists every dataset of the project. */
  readonly datasetId: string | null;
}

export interface AnalyticsDbTableInput extends AnalyticsDbTablesInput {
  readonly name: string;
  /** The project asked for; only the connection's own is readable with its token. */
  readonly database: string | undefined;
  /** The dataset asked for; the connection's when undefined. */
  readonly schema: string | undefined;
}

interface TableListPage {
  readonly tables?: readonly {
    readonly tableReference?: { readonly projectId?: string; readonly tableId?: string };
    readonly type?: string;
  }[];
  readonly nextPageToken?: string;
}

/** The ids of the project's datasets, every page. */
async function datasetIds(bigquery: BigQuery, timeoutMs: number): Promise<string[]> {
  const ids: string[] = [];
  let pageToken: string | undefined;
  do {
    const [, , response] = await bounded(
      bigquery.getDatasets({ autoPaginate: false, maxResults: PAGE_SIZE, ...(pageToken ? { pageToken } : {}) }),
      timeoutMs,
    );
    for (const dataset of response?.datasets ?? [])
      if (dataset.datasetReference?.datasetId) ids.push(dataset.datasetReference.datasetId);
    pageToken = response?.nextPageToken ?? undefined;
  } while (pageToken);
  return ids;
}

/** Lists the connection's tables, at most MAX_LISTED_TABLES; BigQuery failures map to 30-14xx. */
export async function listAnalyticsDbTables(input: AnalyticsDbTablesInput): Promise<TableDetails[]> {
  const timeoutMs = config.connectorTimeoutMs;
  let dataset = input.datasetId ?? '';
  try {
    const { bigquery, projectId } = await openAnalyticsDb(input.credentials, timeoutMs);
    const datasets = input.datasetId ? [input.datasetId] : await datasetIds(bigquery, timeoutMs);
    const tables: TableDetails[] = [];
    for (dataset of datasets) {
      let pageToken: string | undefined;
      do {
        const request = bigquery
          .dataset(dataset)
          .getTables({ autoPaginate: false, maxResults: PAGE_SIZE, ...(pageToken ? { pageToken } : {}) });
        const [, , response] = (await bounded(request, timeoutMs)) as [unknown, unknown, TableListPage | undefined];
        for (const table of response?.tables ?? []) {
          const name = table.tableReference?.tableId;
          if (name)
            tables.push({
              name,
              database: table.tableReference?.projectId ?? projectId,
              schema: dataset,
              type: table.type ?? 'TABLE',
            });
        }
        if (tables.length >= MAX_LISTED_TABLES) return tables.slice(0, MAX_LISTED_TABLES);
        pageToken = response?.nextPageToken ?? undefined;
      } while (pageToken);
    }
    return tables;
  } catch (error) {
    throw analyticsDbTablesError(error, dataset);
  }
}

/**
 * One table's details (tables.get). The dataset is the one asked for, else the connection's;
 * a connection with a dataset reads only it (30-1422), and its token only its project (30-1421).
 */
export async function analyticsDbTable(input: AnalyticsDbTableInput): Promise<TableDetails> {
  const dataset = input.schema ?? input.datasetId;
  if (dataset === null) throw validationError({ schema: 'required: the connection names no dataset' });
  if (!DATASET_ID.test(dataset))
    throw validationError({ schema: 'must be a BigQuery dataset id: letters, digits and underscores' });
  if (input.datasetId && dataset !== input.datasetId)
    throw new AppError('30-1422', { params: [dataset, input.datasetId] });
  const timeoutMs = config.connectorTimeoutMs;
  const opened = await openAnalyticsDb(input.credentials, timeoutMs).catch((error: unknown) => {
    throw analyticsDbTablesError(error, dataset);
  });
  const database = input.database ?? opened.projectId;
  if (database !== opened.projectId) throw new AppError('30-1421', { params: [database, opened.projectId] });
  const shown = `${database}.${dataset}.${input.name}`;
  // No such table can exist, and the name would otherwise reach the request path as it is.
  if (!TABLE_ID.test(input.name)) throw new AppError('30-1425', { params: [shown] });
  try {
    const [metadata] = (await bounded(
      opened.bigquery.dataset(dataset).table(encodeURIComponent(input.name)).getMetadata(),
      timeoutMs,
    )) as [{ readonly tableReference?: { readonly tableId?: string }; readonly type?: string }, ...unknown[]];
    return {
      name: metadata.tableReference?.tableId ?? input.name,
      database,
      schema: dataset,
      type: metadata.type ?? 'TABLE',
    };
  } catch (error) {
    throw analyticsDbTablesError(error, dataset, shown);
  }
}

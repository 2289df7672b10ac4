/**
 * Reading a data source's data into local files for the engine: one function per kind of
 * source, chosen by the connection's type. Object stores are read for real; the other
 * connectors answer 10-1501 until they are built.
 */
import type { ConnectionConfiguration } from '../connections/configuration';
import type { DataSourceData } from '../data-sources/store';
import { AppError } from '../errors/app-error';
import { fetchObjectStoreSource } from './object-store/source';

/** One file fetched into the work folder. */
export interface FetchedFile {
  /** Where the source named it, e.g. "landing/sales/2024-01.csv". */
  readonly source: string;
  readonly localPath: string;
  readonly bytes: number;
}

export interface FetchProgress {
  readonly bytesRead: number;
  readonly filesDone: number;
  readonly filesTotal: number;
}

export interface FetchOptions {
  /** Empty folder the files are written to. */
  readonly workDir: string;
  /** Called whenever bytes arrive; the job turns it into progress and heartbeats. */
  readonly onProgress: (progress: FetchProgress) => void;
  /** Aborts every request in flight (job stopped, inactivity). */
  readonly signal: AbortSignal;
}

export interface FetchedSource {
  readonly files: readonly FetchedFile[];
  readonly bytesRead: number;
}

export type SourceConnection = ConnectionConfiguration & { readonly secret: string };

/**
 * Fetches a data source's data through its connection (secret in clear). A data source of
 * another kind than its connection serves is 10-1043; connectors not built yet are 10-1501
 * with the feature flag connector.<type>, as in a connection test.
 */
export async function fetchSource(connection: SourceConnection, dataSource: DataSourceData, options: FetchOptions): Promise<FetchedSource> {
  switch (connection.type) {
    case 'object_store':
      if (dataSource.type !== 'bucket') throw new AppError('10-1043', { params: [dataSource.type] });
      if (dataSource.path === null) throw new AppError('30-1113', { extraDetails: { path: null } });
      return fetchObjectStoreSource(
        {
          endpoint: connection.auth.endpoint ?? '',
          accessKeyId: connection.auth.access_key_id ?? '',
          secretAccessKey: connection.secret,
          pathRestriction: connection.settings.path_restriction,
          path: dataSource.path,
        },
        options,
      );
    default:
      throw new AppError('10-1501', { params: [`connector.${connection.type}`] });
  }
}

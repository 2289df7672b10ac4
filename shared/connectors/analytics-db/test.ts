import { config } from '../../config';
import type { GoogleCredentials } from '../cloud/token';
import { bounded, openAnalyticsDb } from './client';
import { analyticsDbError } from './errors';

export interface AnalyticsDbTestInput {
  readonly credentials: GoogleCredentials;
  /** The connection's default dataset; without one the project's datasets are listed. */
  readonly datasetId: string | null | undefined;
}

/**
 * Tests an analytics_db configuration for real: the token exchange, then datasets.get of the
 * connection's dataset (which must exist and be readable), or without one a listing of the
 * project's datasets (which needs the project-level permission).
 */
export async function testAnalyticsDb(input: AnalyticsDbTestInput): Promise<void> {
  const datasetId = input.datasetId ?? '';
  try {
    const timeoutMs = config.connectorTimeoutMs;
    const { bigquery } = await openAnalyticsDb(input.credentials, timeoutMs);
    if (datasetId === '') {
      await bounded(bigquery.getDatasets({ maxResults: 1, autoPaginate: false }), timeoutMs);
      return;
    }
    await bounded(bigquery.dataset(datasetId).getMetadata(), timeoutMs);
  } catch (error) {
    throw analyticsDbError(error, datasetId);
  }
}

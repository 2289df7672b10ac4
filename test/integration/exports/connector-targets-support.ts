/**
 * Calls of the connector export tests (connector-targets.test.ts): writable connections, targets, an
 * export of the sales table run to its end, and reading what a BigQuery load left in the fake.
 */
import { expect } from 'vitest';
import type { BigQueryFake } from '../../fakes/bigquery';
import { asBody, type RequestBody, type ResponseBody } from '../../support/api-client';
import { queryFiles, sourceParquet } from '../../support/exports';
import type { TestTwin } from '../../support/harness';
import { waitForJob } from '../../support/imports';

/** The Google project of every fake bucket, dataset and service account. */
export const PROJECT = 'acme-analytics';

/** The columns table exports write, in this order: one of each kind the writers map. */
export const COLUMNS = ['paid', 'id', 'amount', 'day', 'region'];

/**
 * The export calls of `state()`'s twin, through its admin client, exporting version 1 of its table unless told
 * otherwise: a getter, because the twin starts and the table is imported in beforeAll.
 */
export function connectorExportCalls(state: () => { readonly env: TestTwin; readonly tableId: number }) {
  const api = () => state().env.admin;
  return {
    /** Creates a connection with write permission from `request`, expecting 201; returns its id. */
    createWritable: async (request: Record<string, unknown>): Promise<number> => {
      const response = await api().call('createConnection', {
        body: asBody('createConnection', { name: `writer ${Math.random()}`, write: true, ...request }),
      });
      expect(response.status, response.text).toBe(201);
      return response.body.id;
    },
    /** Creates a target from `request`, expecting 201; returns its id. */
    createTarget: async (request: Record<string, unknown>): Promise<number> => {
      const response = await api().call('createTarget', {
        body: asBody('createTarget', { name: `target ${Math.random()}`, ...request }),
      });
      expect(response.status, response.text).toBe(201);
      return response.body.id;
    },
    /** Starts an export of the table to `targetId` (COLUMNS, booleans as integers), then waits for it to end. */
    exportAndWait: async (
      targetId: number,
      overrides: Partial<RequestBody<'createExport'>> = {},
    ): Promise<ResponseBody<'getExport'>> => {
      const started = await api().call('createExport', {
        body: asBody('createExport', {
          target_id: targetId,
          source_type: 'datatable',
          source_id: state().tableId,
          source_version: 1,
          columns: COLUMNS,
          cast_boolean_to_integer: true,
          ...overrides,
        }),
      });
      expect(started.status, started.text).toBe(202);
      return waitForJob(
        () => api().call('getExport', { params: { export_id: started.body.export_id } }),
        (body) => body.execution,
        20_000,
      );
    },
    /** The source version's rows as the export shapes them (paid as an integer, COLUMNS' order), dates as ISO text. */
    expectedRows: async (): Promise<Record<string, unknown>[]> => {
      const { env, tableId } = state();
      return (
        await queryFiles(
          [await sourceParquet(env, tableId, 1)],
          'SELECT CAST(paid AS INTEGER) AS paid, id, amount, CAST(day AS VARCHAR) AS day, region FROM f0',
        )
      ).rows;
    },
  };
}

/** The rows of a BigQuery table of the exports dataset through tabledata.list, as BigQuery's text values by column. */
export async function bigQueryRows(
  bigquery: BigQueryFake,
  email: string,
  table: string,
): Promise<Record<string, unknown>[]> {
  const headers = { authorization: `Bearer ${bigquery.auth.tokenFor(email)}` };
  const base = `${bigquery.endpoint}/bigquery/v2/projects/${PROJECT}/datasets/exports/tables/${table}`;
  const metadata = (await (await fetch(base, { headers })).json()) as {
    schema: { fields: { name: string; type: string }[] };
  };
  const data = (await (await fetch(`${base}/data`, { headers })).json()) as { rows?: { f: { v: unknown }[] }[] };
  return (data.rows ?? []).map((row) =>
    Object.fromEntries(
      metadata.schema.fields.map((field, index) => [`${field.name}:${field.type}`, row.f[index]?.v ?? null]),
    ),
  );
}

/** A source row's value as BigQuery's (or Snowflake's) text of the declared type. */
export const asText = (value: unknown): string | null => (value === null ? null : String(value));

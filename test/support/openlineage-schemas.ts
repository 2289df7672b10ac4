/**
 * The official OpenLineage JSON schemas (spec 2-0-2 and its facets), read where CI keeps them:
 * ../shared/openlineage-schemas from the project's root, never copied into the project. A
 * clone without that folder has no validator; the tests that need one say so and skip.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

export const OPENLINEAGE_SCHEMAS_DIR = resolve(__dirname, '../../../shared/openlineage-schemas');
export const OPENLINEAGE_SCHEMAS_PRESENT = existsSync(join(OPENLINEAGE_SCHEMAS_DIR, 'OpenLineage.json'));
export const OPENLINEAGE_SCHEMAS_ABSENT_NOTE = `skipped: the official OpenLineage schemas are not at ${OPENLINEAGE_SCHEMAS_DIR} (CI has them; see docs/lineage.md)`;

/** What a run event breaks of the official schemas: the core event's, and each facet's own. */
export interface OpenLineageValidator {
  problems(event: unknown): string[];
}

type JsonRecord = Record<string, unknown>;

/** Ajv (draft 2020-12, formats checked) over the core schema and every facet schema of the folder. */
export function openLineageValidator(): OpenLineageValidator {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  const read = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as JsonRecord;
  const core = read(join(OPENLINEAGE_SCHEMAS_DIR, 'OpenLineage.json'));
  ajv.addSchema(core);
  const facets = new Map<string, ValidateFunction>();
  for (const file of readdirSync(join(OPENLINEAGE_SCHEMAS_DIR, 'facets')).filter((name) => name.endsWith('.json'))) {
    const schema = read(join(OPENLINEAGE_SCHEMAS_DIR, 'facets', file));
    ajv.addSchema(schema);
    // A facet file's root names the facet key it describes: {"properties": {"schema": ...}}.
    for (const key of Object.keys((schema.properties as JsonRecord | undefined) ?? {}))
      facets.set(`${key}@${String(schema.$id)}`, ajv.getSchema(String(schema.$id))!);
  }
  const runEvent = ajv.getSchema(`${String(core.$id)}#/$defs/RunEvent`)!;
  const errorsOf = (validate: ValidateFunction, value: unknown, at: string) =>
    validate(value) ? [] : (validate.errors ?? []).map((error) => `${at}${error.instancePath} ${error.message ?? ''}`);
  return {
    problems(event) {
      const problems = errorsOf(runEvent, event, 'event');
      const facetsOf = (owner: unknown, at: string) => {
        const found = (owner as { facets?: JsonRecord } | undefined)?.facets ?? {};
        for (const [key, value] of Object.entries(found)) {
          const schemaUrl = String((value as JsonRecord)._schemaURL ?? '').split('#')[0];
          const validate = facets.get(`${key}@${schemaUrl}`);
          if (!validate) problems.push(`${at}.facets.${key}: no official facet schema ${schemaUrl} for key ${key}`);
          else problems.push(...errorsOf(validate, { [key]: value }, `${at}.facets`));
        }
      };
      const body = event as { run?: unknown; job?: unknown; inputs?: unknown[]; outputs?: unknown[] };
      facetsOf(body.run, 'run');
      facetsOf(body.job, 'job');
      (body.inputs ?? []).forEach((dataset, index) => facetsOf(dataset, `inputs[${index}]`));
      (body.outputs ?? []).forEach((dataset, index) => facetsOf(dataset, `outputs[${index}]`));
      return problems;
    },
  };
}

/**
 * The stage's Lambda layers as the infrastructure tests read them: every function has
 * Powertools' layer (infra/layers/powertools-layer.ts); DuckDB's (infra/layers/duckdb-layer.ts)
 * is the engine's, for the functions that declare engine only.
 */
import { expect } from 'vitest';
import { asList, type JsonObject } from './json';
import { allResourcesOfType, propertiesOf, targetOf, type FunctionInfo, type SynthesizedTemplates } from './synth';

/** True for the logical id of Powertools' layer. */
export const isPowertoolsLayer = (logicalId: string | undefined): boolean =>
  logicalId?.startsWith('PowertoolsLayer') === true;

/** The stage's layers but Powertools': its DuckDB layer, one in the root stack where any function uses DuckDB. */
export function engineLayers(stage: SynthesizedTemplates) {
  return allResourcesOfType(stage, 'AWS::Lambda::LayerVersion').filter((layer) => !isPowertoolsLayer(layer.logicalId));
}

/** The layers a function names, as the logical ids they resolve to, less Powertools'. */
export function engineLayersOf(fn: FunctionInfo): (string | undefined)[] {
  return asList(fn.properties.Layers ?? [])
    .map((layer) => targetOf(fn.view, layer)?.logicalId)
    .filter((logicalId) => !isPowertoolsLayer(logicalId));
}

/** The stage's one DuckDB layer: its logical id, properties and the template that holds it. */
export function duckDbLayer(stage: SynthesizedTemplates): {
  logicalId: string;
  properties: JsonObject;
  view: SynthesizedTemplates['root'];
} {
  const layers = engineLayers(stage);
  expect(layers).toHaveLength(1);
  const [{ logicalId, resource, view }] = layers as [(typeof layers)[number]];
  return { logicalId, properties: propertiesOf(resource), view };
}

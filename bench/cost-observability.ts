/**
 * Part of `npm run bench -- cost`: what the instrumentation (docs/operations.md) adds to a
 * request. CPU: the request wrapper's metric lines (two when the answer is a problem) and its
 * trace span, timed in this process over many calls, the lines written to /dev/null as Lambda
 * writes them to stdout; the Tracer is off outside Lambda, so an X-Ray subsegment's own cost
 * (the SDK's UDP send) is not in it. Bytes: what shared/observability adds to a route's bundle,
 * and the Powertools layer that every function loads instead of bundling it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleApiFunctions } from '../infra/bundling';
import { buildPowertoolsLayer } from '../infra/layers/powertools-layer';
import { LOCAL_METRICS_FILE_VARIABLE, recordRequest } from '../shared/observability/metrics';
import { openSpan } from '../shared/observability/tracing';

/** The bound the report checks: instrumentation CPU per request, median, in ms. */
export const MAX_INSTRUMENTATION_CPU_MS = 0.15;
/** The bound on what shared/observability adds to a route's bundle, in bytes. */
export const MAX_INSTRUMENTATION_BUNDLE_BYTES = 8 * 1024;

const RUNS = 2000;

/** Median CPU ms of one request's instrumentation: a success, or a refusal (its second line, by family). */
function instrumentationCpuMs(problem: boolean): number {
  const samples: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    const before = process.cpuUsage();
    const span = openSpan('listConnections', { route: 'listConnections', trace_id: 'bench' });
    recordRequest({
      operation: 'listConnections',
      status: problem ? 404 : 200,
      latencyMs: 12.3,
      code: problem ? '10-404' : undefined,
      tenantId: 'bench',
      traceId: `trace-${run}`,
    });
    span.annotate({ tenant: 'bench', status: problem ? 404 : 200 });
    span.close();
    const used = process.cpuUsage(before);
    samples.push((used.user + used.system) / 1000);
  }
  samples.sort((a, b) => a - b);
  return samples[samples.length >> 1]!;
}

export async function observabilityCost(): Promise<string[]> {
  const saved = { file: process.env[LOCAL_METRICS_FILE_VARIABLE], disabled: process.env.POWERTOOLS_METRICS_DISABLED };
  Object.assign(process.env, { [LOCAL_METRICS_FILE_VARIABLE]: '/dev/null', POWERTOOLS_METRICS_DISABLED: 'false' });
  let success: number;
  let refusal: number;
  try {
    instrumentationCpuMs(false); // warm up
    success = instrumentationCpuMs(false);
    refusal = instrumentationCpuMs(true);
  } finally {
    for (const [name, value] of [
      [LOCAL_METRICS_FILE_VARIABLE, saved.file],
      ['POWERTOOLS_METRICS_DISABLED', saved.disabled],
    ] as const)
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
  }
  const handler = 'connections/create';
  const bundle = (await bundleApiFunctions([handler], new Set())).get(handler)!;
  const observability = Object.entries(Object.values(bundle.metafile.outputs)[0]!.inputs)
    .filter(([path]) => path.includes('shared/observability/'))
    .reduce((total, [, input]) => total + input.bytesInOutput, 0);
  const layerDir = mkdtempSync(join(tmpdir(), 'dps-powertools-'));
  let layer: Record<string, number>;
  try {
    layer = buildPowertoolsLayer(layerDir);
  } finally {
    rmSync(layerDir, { recursive: true, force: true });
  }
  const layerLine = Object.entries(layer)
    .map(([name, bytes]) => `${name.replace('@aws-lambda-powertools/', '')} ${(bytes / 1024).toFixed(1)} KB`)
    .join(', ');
  const cpuOk = Math.max(success, refusal) <= MAX_INSTRUMENTATION_CPU_MS;
  const bytesOk = observability <= MAX_INSTRUMENTATION_BUNDLE_BYTES;
  return [
    '',
    '### What the instrumentation adds to a request (docs/operations.md)',
    '',
    `- CPU per request (metric lines and trace span, median of ${RUNS}): ${success.toFixed(3)} ms answered, ${refusal.toFixed(3)} ms refused (two lines); bound ${MAX_INSTRUMENTATION_CPU_MS} ms: ${cpuOk ? 'ok' : 'OVER'}. X-Ray's own send is not measured here (the Tracer is off outside Lambda).`,
    `- Bundle: shared/observability adds ${observability} bytes to ${handler} (bound ${MAX_INSTRUMENTATION_BUNDLE_BYTES}: ${bytesOk ? 'ok' : 'OVER'}); Powertools itself is in the stage's layer, not the bundle (${layerLine}), so a route's bundle is smaller than when it bundled the logger alone.`,
  ];
}

/**
 * The EMF lines the service writes (shared/observability/metrics.ts), read back from a metrics
 * file (the twin's, or one a unit test names with LOCAL_METRICS_FILE): each line's metric
 * directive, values and properties, checked against the shape CloudWatch reads.
 */
import { existsSync, readFileSync } from 'node:fs';
import * as z from 'zod';

/** One EMF line: its metric directive, and its values and properties. */
export const EmfLine = z.looseObject({
  _aws: z.object({
    Timestamp: z.number(),
    CloudWatchMetrics: z.array(
      z.object({
        Namespace: z.string(),
        Dimensions: z.array(z.array(z.string())),
        Metrics: z.array(z.object({ Name: z.string(), Unit: z.string() })),
      }),
    ),
  }),
});
export type EmfLine = z.infer<typeof EmfLine>;

/** Every line of `file` (none when it does not exist yet). */
export function readMetricLines(file: string): EmfLine[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => EmfLine.parse(JSON.parse(line)));
}

/** The lines of `file` that have metric `name` and the given properties. */
export function linesWith(file: string, name: string, properties: Readonly<Record<string, unknown>>): EmfLine[] {
  return readMetricLines(file).filter(
    (line) =>
      line._aws.CloudWatchMetrics[0]!.Metrics.some((metric) => metric.Name === name) &&
      Object.entries(properties).every(([key, value]) => line[key] === value),
  );
}

/** A line's metric names and their units. */
export const metricsOf = (line: EmfLine): Record<string, string> =>
  Object.fromEntries(line._aws.CloudWatchMetrics[0]!.Metrics.map((metric) => [metric.Name, metric.Unit]));

/** A line's one dimension set. */
export const dimensionsOf = (line: EmfLine): string[][] => line._aws.CloudWatchMetrics[0]!.Dimensions;

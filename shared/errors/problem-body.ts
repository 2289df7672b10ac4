import * as z from 'zod';

/** RFC 7807 problem details, the body of every failed call (spec 7.1). */
export const Problem = z
  .object({
    type: z.string().describe('URI of the problem type: {error_base}/errors/{code}'),
    title: z.string().describe('Short summary: the HTTP reason phrase of the status'),
    status: z.int().describe('HTTP status code'),
    detail: z.string().describe('Human-readable explanation of this occurrence'),
    instance: z.string().describe('API path where the error occurred'),
    code: z
      .string()
      .regex(/^\d{2}-\d{3,5}$/)
      .describe('Catalogue code, <family>-<number>'),
    timestamp: z.iso.datetime().describe('ISO 8601 time of the error'),
    extraDetails: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('Extra context; for 10-1400 each invalid field mapped to the violated rule'),
    traceId: z.string().describe('Request trace id, also present in the service log line'),
  })
  .meta({ id: 'Problem' });

export type Problem = z.infer<typeof Problem>;

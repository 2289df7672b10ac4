/** What bench/cost-jobs.ts and its twin process (bench/cost-jobs-twin-process.ts) say to each other, beside import-protocol's. */

/** Parent to child: ask for the functions' environment, or answer a worker invocation. */
export type CostJobsParentMessage =
  | { readonly type: 'environment' }
  | {
      readonly type: 'invoked';
      readonly id: number;
      readonly output?: unknown;
      readonly error?: { readonly name: string; readonly message: string };
    };

/** Child to parent: the functions' environment, or a worker invocation to run. */
export type CostJobsChildMessage =
  | { readonly type: 'environment'; readonly environment: Readonly<Record<string, string>>; readonly s3Port: number }
  | {
      readonly type: 'invoke';
      readonly id: number;
      readonly worker: string;
      readonly input: unknown;
      readonly awsRequestId: string;
    };

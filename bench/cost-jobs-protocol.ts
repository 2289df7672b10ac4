/** What bench/cost-jobs.ts and its twin process (bench/cost-jobs-twin-process.ts) say to each other, beside import-protocol's. */

/** Bucket of the twin's S3 that the export to a target writes to (a second bucket beside the source's). */
export const TARGET_BUCKET = 'bench-targets';

/** Client credentials issued by the twin, with the tenant they belong to. */
export interface TwinCredentials {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly tenantId: string;
}

/** The pricing DIM fake the twin process runs for the transfer: what a pricing_dim connection to it names. */
export interface PricingDimEndpoint {
  readonly host: string;
  readonly tokenUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly scope: string;
}

/** Parent to child: ask for the functions' environment, or answer a worker invocation. */
export type CostJobsParentMessage =
  | { readonly type: 'environment' }
  | {
      readonly type: 'invoked';
      readonly id: number;
      readonly output?: unknown;
      readonly error?: { readonly name: string; readonly message: string };
    };

/** Child to parent: the functions' environment and what the jobs need besides, or a worker invocation to run. */
export type CostJobsChildMessage =
  | {
      readonly type: 'environment';
      readonly environment: Readonly<Record<string, string>>;
      readonly s3Port: number;
      /** The platform admin, who turns the transfers and apps toggles on for the admin's tenant. */
      readonly platformAdmin: TwinCredentials;
      readonly adminTenantId: string;
      readonly pricingDim: PricingDimEndpoint;
    }
  | {
      readonly type: 'invoke';
      readonly id: number;
      readonly worker: string;
      readonly input: unknown;
      readonly awsRequestId: string;
    };

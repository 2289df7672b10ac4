import { createPrivateKey } from 'node:crypto';
import * as z from 'zod';
import { AppError } from '../../errors/app-error';
import type { ErrorCode } from '../../errors/catalogue';
import { serviceUrl } from '../endpoint';

const ServiceAccountKey = z.object({
  type: z.literal('service_account'),
  project_id: z.string().min(1),
  private_key: z.string().min(1),
  client_email: z.email(),
  private_key_id: z.string().optional(),
  token_uri: z.string().optional(),
});

/** The fields of a service-account key file the connectors use. */
export type ServiceAccountKeyFile = z.output<typeof ServiceAccountKey>;

/**
 * A Google service-account key file. It must be JSON of type service_account with a project,
 * a client e-mail and a private key that parses. The code differs by connection family:
 * 30-1320 for cloud storage, 30-1415 for the analytics database.
 */
export function parseServiceAccountKey(
  json: string,
  code: Extract<ErrorCode, '30-1320' | '30-1415'>,
): { projectId: string } {
  return { projectId: readServiceAccountKey(json, code).project_id };
}

/** The key file itself, checked as parseServiceAccountKey checks it, for a connector's token exchange. */
export function readServiceAccountKey(
  json: string,
  code: Extract<ErrorCode, '30-1320' | '30-1415'>,
): ServiceAccountKeyFile {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new AppError(code, { extraDetails: { 'auth.service_account_key_json': 'is not valid JSON' } });
  }
  const key = ServiceAccountKey.safeParse(parsed);
  if (!key.success) {
    const fields = key.error.issues.map((issue) => issue.path.join('.') || 'document').join(', ');
    throw new AppError(code, { extraDetails: { 'auth.service_account_key_json': `missing or invalid: ${fields}` } });
  }
  try {
    createPrivateKey(key.data.private_key);
  } catch {
    throw new AppError(code, {
      extraDetails: { 'auth.service_account_key_json': 'private_key is not a readable PEM key' },
    });
  }
  if (key.data.token_uri !== undefined) serviceUrl(key.data.token_uri, 'auth.service_account_key_json.token_uri');
  return key.data;
}

export interface WorkloadIdentityFields {
  readonly token_url: string;
  readonly service_account_email: string;
  readonly project_id: string;
}

/**
 * Workload identity federation: the token URL must be a usable https URL, and a
 * service-account e-mail of the form name@<project>.iam.gserviceaccount.com must name the
 * connection's project (30-1322).
 */
export function checkWorkloadIdentity(auth: WorkloadIdentityFields): void {
  serviceUrl(auth.token_url, 'auth.token_url');
  const emailProject = /@([a-z][a-z0-9-]{4,28}[a-z0-9])\.iam\.gserviceaccount\.com$/i.exec(
    auth.service_account_email,
  )?.[1];
  if (emailProject !== undefined && emailProject.toLowerCase() !== auth.project_id.toLowerCase()) {
    throw new AppError('30-1322', { params: [auth.project_id, auth.service_account_email] });
  }
}

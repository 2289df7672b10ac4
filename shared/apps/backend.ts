import type * as z from 'zod';
import { config } from '../config';
import { causes, classifyNoAnswer } from '../connectors/no-answer';
import { isAllowedPlainHttp } from '../connectors/outbound-guard';
import { outboundRequest, type OutboundResponse } from '../connectors/outbound-http';
import { AppError, isAppError } from '../errors/app-error';

/**
 * Calls to an app's backend hosted elsewhere (docs/apps.md, "App backends"): a POST of the
 * action's input and the run's context, through the outbound guard, bounded in time
 * (CONNECTOR_TIMEOUT_MS, as every call to an external system) and in the size of the answer.
 * Nothing of the tenant's credentials goes out: no token, no header but the media types.
 */

/** Largest answer taken from a backend: it is kept as the run's result, on one DynamoDB item. */
export const MAX_BACKEND_ANSWER_BYTES = 64 * 1024;

type Json = z.infer<ReturnType<typeof z.json>>;

/** What a backend is told of the run, besides the input: who asks, never with what credentials. */
export interface BackendCallContext {
  readonly tenant_id: string;
  readonly bundle_id: number;
  readonly session_id: string;
  readonly run_id: string;
  readonly action: string;
}

/**
 * Why a manifest's backend base URL cannot be used, or undefined when it can: https, or plain
 * http only to a destination the outbound allow-list names (the twin's local fakes); no
 * credentials, query or fragment. The guard's address rules run at every call, not here: the
 * name may resolve elsewhere by then.
 */
export function backendUrlProblem(baseUrl: string): string | undefined {
  const url = new URL(baseUrl);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isAllowedPlainHttp(url)))
    return 'must be an https:// URL';
  if (url.username !== '' || url.password !== '') return 'must not carry credentials';
  if (url.search !== '' || url.hash !== '') return 'must have no query or fragment';
  return undefined;
}

/** The URL of a call: the action's path under the base URL (which is read as a folder). */
function callUrl(baseUrl: string, path: string): URL {
  return new URL(path, baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
}

const unavailable = (details: Readonly<Record<string, unknown>>) =>
  new AppError('80-8032', { extraDetails: { backend: 'the app’s backend did not answer usably', ...details } });

/** 80-8036 for a call that ran out of time, 80-8032 for every other call that got no usable answer. */
function noAnswerError(error: unknown): AppError {
  if (isAppError(error) && error.code === '30-1130')
    return unavailable({ reason: 'refused by the outbound guard', ...error.extraDetails });
  const noAnswer = classifyNoAnswer(error);
  if (noAnswer.kind === 'blocked')
    return unavailable({ reason: 'refused by the outbound guard', ...noAnswer.error.extraDetails });
  if (noAnswer.reason === 'timeout')
    return new AppError('80-8036', { extraDetails: { timeout_ms: config.connectorTimeoutMs }, cause: error });
  const tooLarge = causes(error).some((cause) => cause instanceof Error && cause.message.startsWith('answer larger'));
  return unavailable({
    reason: tooLarge ? `answer over ${MAX_BACKEND_ANSWER_BYTES} bytes` : (noAnswer.reason ?? 'network_error'),
  });
}

/** POSTs the call to the backend and answers the JSON it answers: 80-8032 or 80-8036 when it fails to. */
export async function callBackend(
  baseUrl: string,
  path: string,
  input: Readonly<Record<string, Json>>,
  context: BackendCallContext,
): Promise<Json> {
  const url = callUrl(baseUrl, path);
  const problem = backendUrlProblem(url.href);
  if (problem !== undefined) throw unavailable({ reason: `the backend URL ${problem}` });
  let answer: OutboundResponse;
  try {
    answer = await outboundRequest({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input, context }),
      timeoutMs: config.connectorTimeoutMs,
      maxAnswerBytes: MAX_BACKEND_ANSWER_BYTES,
    });
  } catch (error) {
    throw noAnswerError(error);
  }
  if (answer.status < 200 || answer.status > 299) throw unavailable({ backend_status: answer.status });
  try {
    return JSON.parse(answer.text) as Json;
  } catch {
    throw unavailable({ reason: 'the answer is not JSON' });
  }
}

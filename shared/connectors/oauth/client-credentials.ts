import { request as httpRequest, Agent as HttpAgent, type IncomingMessage } from 'node:http';
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https';
import * as z from 'zod';
import { AppError } from '../../errors/app-error';
import { serviceUrl } from '../endpoint';
import { guardedLookup, portOf } from '../outbound-guard';
import { oauthTokenError, oauthTransportError } from './errors';

/**
 * The OAuth 2.0 client-credentials grant (RFC 6749 §4.4) against a connection's token URL:
 * one POST through the outbound guard, bounded by the connector timeout, the client
 * authenticated with HTTP Basic (§2.3.1, which every server must support). Failures map to
 * 30-12xx from what the server answered (errors.ts); its descriptions never reach the caller.
 */
export interface ClientCredentialsRequest {
  /** The token endpoint, checked like every URL a connection names (https, not private). */
  readonly tokenUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Space-separated scopes; omitted from the request when empty. */
  readonly scope: string | null | undefined;
  readonly timeoutMs: number;
  /** The field that named the token URL, for 10-1008 (auth.token_url). */
  readonly field?: string;
}

export interface AccessToken {
  readonly accessToken: string;
  /** Seconds, when the server said. */
  readonly expiresIn: number | undefined;
}

/** A token answer is small; a server that sends more is not a token endpoint. */
const MAX_ANSWER_BYTES = 64 * 1024;

/** A token endpoint's success answer (RFC 6749 §5.1), as every grant gets it. */
export const TokenAnswer = z.object({
  access_token: z.string().min(1),
  // RFC 6749 §5.1 requires it; a few servers omit it, and only bearer tokens are usable.
  token_type: z
    .string()
    .refine((type) => type.toLowerCase() === 'bearer')
    .optional(),
  expires_in: z.coerce.number().positive().optional(),
});

/** Client id and secret as §2.3.1 encodes them for Basic: form-urlencoded, then base64. */
function basicCredentials(clientId: string, clientSecret: string): string {
  const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');
  return Buffer.from(`${encode(clientId)}:${encode(clientSecret)}`).toString('base64');
}

interface RawAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

function post(url: URL, body: string, headers: Record<string, string>, timeoutMs: number): Promise<RawAnswer> {
  const lookup = guardedLookup(portOf(url));
  const secure = url.protocol === 'https:';
  // One agent per call: the connection is not kept for a later call to another destination.
  const agent = secure ? new HttpsAgent({ lookup }) : new HttpAgent({ lookup });
  const send = secure ? httpsRequest : httpRequest;
  return new Promise<RawAnswer>((resolve, reject) => {
    const outgoing = send(
      url,
      {
        method: 'POST',
        agent,
        signal: AbortSignal.timeout(timeoutMs),
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      },
      (response: IncomingMessage) => {
        const parts: Buffer[] = [];
        let size = 0;
        response.on('data', (part: Buffer) => {
          size += part.length;
          if (size > MAX_ANSWER_BYTES) {
            response.destroy(Object.assign(new Error('token answer too large'), { code: 'EANSWERTOOLARGE' }));
            return;
          }
          parts.push(part);
        });
        response.on('error', reject);
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            contentType: String(response.headers['content-type'] ?? ''),
            body: Buffer.concat(parts).toString('utf8'),
          }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  }).finally(() => agent.destroy());
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Asks the token endpoint for an access token. The secret is sent once, in the Authorization
 * header, and kept nowhere.
 */
export async function requestClientCredentialsToken(input: ClientCredentialsRequest): Promise<AccessToken> {
  const url = serviceUrl(input.tokenUrl, input.field ?? 'auth.token_url');
  const form = new URLSearchParams({ grant_type: 'client_credentials' });
  const scope = input.scope?.trim();
  if (scope) form.set('scope', scope);
  let answer: RawAnswer;
  try {
    answer = await post(
      url,
      form.toString(),
      {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        authorization: `Basic ${basicCredentials(input.clientId, input.clientSecret)}`,
      },
      input.timeoutMs,
    );
  } catch (error) {
    throw oauthTransportError(error);
  }
  const json = parseJson(answer.body);
  if (answer.status !== 200) throw oauthTokenError(answer.status, json);
  const token = TokenAnswer.safeParse(json);
  if (!token.success)
    throw new AppError('30-1206', {
      extraDetails: { provider_status: answer.status, reason: 'the answer carries no bearer access token' },
    });
  return { accessToken: token.data.access_token, expiresIn: token.data.expires_in };
}

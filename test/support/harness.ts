/**
 * Test harness: the local twin started in this test process on random 127.0.0.1 ports, and
 * HTTP clients that authenticate the way a real caller does (client credentials → token).
 */
import { createClient } from '../../shared/auth/clients';
import type { RoleName } from '../../shared/auth/permissions';
import { startTwin, type Twin, type TwinOptions } from '../../infra/local/twin';

export interface ApiResponse<T = any> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
  /** The raw response text, for scanning. */
  readonly text: string;
}

export interface RequestOptions {
  readonly body?: unknown;
  /** Sent as is when a string; JSON-encoded otherwise. */
  readonly contentType?: string;
  readonly headers?: Record<string, string>;
  /** Overrides the client's token; null sends no Authorization header. */
  readonly token?: string | null;
}

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly token: string | null,
    readonly tenantId?: string,
  ) {}

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    const token = options.token === undefined ? this.token : options.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      headers['content-type'] = options.contentType ?? 'application/json';
    }
    const response = await fetch(`${this.baseUrl}${path}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    if (/json/.test(response.headers.get('content-type') ?? '') && text !== '') parsed = JSON.parse(text);
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }

  get<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('GET', path, options);
  }
  post<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('POST', path, { ...options, body });
  }
  put<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('PUT', path, { ...options, body });
  }
  patch<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('PATCH', path, { contentType: 'application/merge-patch+json', ...options, body });
  }
  delete<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('DELETE', path, options);
  }
}

export interface TestTwin {
  readonly twin: Twin;
  /** Unauthenticated client. */
  readonly anonymous: ApiClient;
  /** Admin of tenant "local". */
  readonly admin: ApiClient;
  /** A client of `tenantId` with `roles`, authenticated through POST /oauth/token. */
  clientFor(tenantId: string, roles: readonly RoleName[]): Promise<ApiClient>;
  close(): Promise<void>;
}

export async function exchangeToken(baseUrl: string, clientId: string, clientSecret: string): Promise<string> {
  const response = await fetch(`${baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
  });
  if (response.status !== 200) throw new Error(`token exchange failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

export async function startTestTwin(options: TwinOptions = {}): Promise<TestTwin> {
  const twin = await startTwin(options);
  const clientFor = async (tenantId: string, roles: readonly RoleName[]) => {
    const credentials = await createClient({ tenantId, roles, description: `${roles.join('+')} of ${tenantId}` });
    return new ApiClient(twin.apiUrl, await exchangeToken(twin.apiUrl, credentials.client_id, credentials.client_secret), tenantId);
  };
  const admin = new ApiClient(twin.apiUrl, await exchangeToken(twin.apiUrl, twin.admin.client_id, twin.admin.client_secret), twin.admin.tenant_id);
  return { twin, anonymous: new ApiClient(twin.apiUrl, null), admin, clientFor, close: () => twin.close() };
}

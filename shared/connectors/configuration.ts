import { AUTH_VARIANTS, SETTING_NAMES, type AuthFields, type AuthType, type ConnectionType } from '../model/connection';

/** Auth fields that may be shown: everything but the variant's secret. */
export type PublicAuth = { readonly auth_type: AuthType } & { readonly [field: string]: string | null | undefined };
/** Type-specific fields (path_restriction, database, ...), null when not set. */
export type Settings = Readonly<Record<string, string | null>>;

/** A connection's configuration with its secret split from the rest. */
export interface ConnectionConfiguration {
  readonly type: ConnectionType;
  readonly auth: PublicAuth;
  /** The secret in clear; undefined when an update keeps the stored one. */
  readonly secret: string | undefined;
  readonly settings: Settings;
}

/** A configuration with its secret in clear: what a connector reads a source or writes a target through. */
export type SourceConnection = ConnectionConfiguration & { readonly secret: string };

export function secretFieldOf(authType: AuthType): string {
  return AUTH_VARIANTS[authType].secretField;
}

export function splitAuth(auth: AuthFields): { auth: PublicAuth; secret: string | undefined } {
  const secretField = secretFieldOf(auth.auth_type);
  const visible: Record<string, string | null> = {};
  for (const [field, value] of Object.entries(auth)) {
    if (field !== secretField && value !== undefined) visible[field] = value as string | null;
  }
  const secret = auth[secretField];
  return { auth: visible as PublicAuth, secret: typeof secret === 'string' ? secret : undefined };
}

export function settingsOf(type: ConnectionType, source: Readonly<Record<string, unknown>>): Settings {
  return Object.fromEntries(
    SETTING_NAMES[type].map((name) => [name, (source[name] as string | null | undefined) ?? null]),
  );
}

export function configurationOf(
  request: { readonly type: ConnectionType; readonly auth: AuthFields } & Readonly<Record<string, unknown>>,
): ConnectionConfiguration {
  return { type: request.type, ...splitAuth(request.auth), settings: settingsOf(request.type, request) };
}

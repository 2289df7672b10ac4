/**
 * What each list can be filtered and sorted by (docs/list-query.md): field name → type. An
 * entity declared with defineEntity (shared/http/define-entity.ts) derives its table from its
 * field accessors, so its fields are written once there; the tables below are those of lists
 * not declared that way yet. Each serves twice: the list handler's accessors are typed by it
 * (a field added here and not read there, or the other way round, does not compile), and
 * the OpenAPI document describes the list's sort and filter parameters from it.
 */
export type ListFieldType = 'string' | 'integer' | 'boolean' | 'datetime' | 'string-list';
export type ListFieldTypes = Readonly<Record<string, ListFieldType>>;

/** Bounds of the grammar: sort keys, tokens of a filter, and its levels of "not" and parentheses. */
export const MAX_SORT_KEYS = 3;
export const MAX_FILTER_TOKENS = 200;
export const MAX_FILTER_DEPTH = 16;

/** Versions of one table; status is the import's execution status. */
export const DATA_VERSION_LIST_FIELDS = {
  version_number: 'integer',
  status: 'string',
  created_date: 'datetime',
} as const satisfies ListFieldTypes;

/** Graph versions of one dataset; version_display_name is opaque, so it is not listed. */
export const DATASET_VERSION_LIST_FIELDS = {
  version_number: 'integer',
  release_status: 'boolean',
  created_date: 'datetime',
  last_modified_date: 'datetime',
} as const satisfies ListFieldTypes;

/** Tables of a connection, read from the external system (shared/model/table.ts). */
export const TABLE_LIST_FIELDS = {
  name: 'string',
  database: 'string',
  schema: 'string',
  type: 'string',
} as const satisfies ListFieldTypes;

export const TOKEN_LIST_FIELDS = {
  client_id: 'string',
  description: 'string',
  created_at: 'datetime',
  expires_at: 'datetime',
  role_ids: 'string-list',
} as const satisfies ListFieldTypes;

export const ROLE_LIST_FIELDS = {
  role_id: 'string',
  name: 'string',
  permissions: 'string-list',
  built_in: 'boolean',
} as const satisfies ListFieldTypes;

/** Tenants of the admin plane's registry (GET /admin/tenants). */
export const TENANT_LIST_FIELDS = {
  tenant_id: 'string',
  name: 'string',
  description: 'string',
  created_by: 'string',
  created_date: 'datetime',
} as const satisfies ListFieldTypes;

/** Feature toggles of the admin plane (GET /admin/feature-toggles); `default` is the default's strategy. */
export const FEATURE_TOGGLE_LIST_FIELDS = {
  name: 'string',
  description: 'string',
  available: 'boolean',
  default: 'string',
} as const satisfies ListFieldTypes;

/** The tenant's app links (GET /apps/links), one per provider. */
export const APP_LINK_LIST_FIELDS = {
  link_id: 'string',
  last_modified_date: 'datetime',
} as const satisfies ListFieldTypes;

/** AI-assistant conversations (GET /conversations). */
export const CONVERSATION_LIST_FIELDS = {
  conversation_id: 'string',
  created_date: 'datetime',
  last_modified_date: 'datetime',
  message_count: 'integer',
  active: 'boolean',
} as const satisfies ListFieldTypes;

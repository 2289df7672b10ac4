/**
 * The valid requests of the admin plane's operations (feature toggles and tenants), apart
 * from test/contract/corpus.ts to keep each module small. The contract test sends them with
 * the platform admin's token. The toggle they set is one this build lacks, to off, so that
 * no other case of the corpus changes behaviour under them.
 */
import type { OperationId } from '../../functions/routes';
import type { JsonValue } from './variations';

/** The parts of a valid request the corpus varies (the Base of test/contract/corpus.ts). */
export interface AdminBase {
  readonly params?: Readonly<Record<string, string>>;
  readonly body?: JsonValue;
  readonly enums?: Readonly<Record<string, readonly JsonValue[]>>;
}

const TOGGLE = { toggle_name: 'ai_assistant' };
const TENANT = { tenant_id: 'contract-tenant' };

export function adminBases(): Partial<Readonly<Record<OperationId, AdminBase>>> {
  return {
    listFeatureToggles: {},
    getFeatureToggle: { params: TOGGLE },
    setFeatureToggleDefault: { params: TOGGLE, body: { strategy: 'off' }, enums: { strategy: ['On', 'sometimes'] } },
    setFeatureToggleOverride: {
      params: { ...TOGGLE, ...TENANT },
      body: { strategy: 'off' },
      enums: { strategy: ['percentage', 'tenant_list', 'OFF'] },
    },
    clearFeatureToggleOverride: { params: { ...TOGGLE, ...TENANT } },
    createTenant: { body: { ...TENANT, name: 'Contract tenant', description: null } },
    listTenants: {},
    getTenant: { params: TENANT },
    getTenantSystemUser: { params: TENANT },
    getTenantCustomerUser: { params: { ...TENANT, client_id: 'contract-tenant.0123456789abcdef0123456789abcdef' } },
    getTenantOpenLineageEndpoint: { params: TENANT },
    // null: the stage's endpoint again, so that no other case of the corpus sends events elsewhere.
    setTenantOpenLineageEndpoint: { params: TENANT, body: { url: null } },
    getPlatformRole: { params: { role_name: 'viewer' } },
  };
}

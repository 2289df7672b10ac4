/**
 * The valid requests of the app operations (docs/apps.md), apart from test/contract/corpus.ts
 * to keep each module small. The contract tenant has the apps toggle off: a request the
 * document accepts answers 10-1501, one it refuses 10-1400, as the handler validates before it
 * looks at the toggle; test/integration/apps runs the apps themselves. The bodies are the fuzz
 * suite's starting requests (test/fuzz/app-bodies.ts).
 */
import type { OperationId } from '../../functions/routes';
import { APP_STARTING_REQUESTS } from '../fuzz/app-bodies';
import type { JsonValue } from './variations';

/** The parts of a valid request the corpus varies (the Base of test/contract/corpus.ts). */
export interface AppBase {
  readonly params?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string>>;
  readonly body?: JsonValue;
}

const bundle = { bundle_id: '1' };
const session = { ...bundle, session_id: 'a1b2c3' };

/** A starting request of the fuzz suite, its path parameters as the text a URL carries. */
function fromFuzz(operationId: keyof typeof APP_STARTING_REQUESTS): AppBase {
  const start: { params?: Readonly<Record<string, string | number>>; body: JsonValue } =
    APP_STARTING_REQUESTS[operationId]();
  const params = start.params
    ? Object.fromEntries(Object.entries(start.params).map(([name, value]) => [name, String(value)]))
    : undefined;
  return { ...(params ? { params } : {}), body: start.body };
}

export function appBases(): Partial<Readonly<Record<OperationId, AppBase>>> {
  return {
    createAppBundle: fromFuzz('createAppBundle'),
    listAppBundles: { query: { limit: '5' } },
    getAppBundle: { params: bundle },
    updateAppBundle: fromFuzz('updateAppBundle'),
    uploadAppBundleVersion: fromFuzz('uploadAppBundleVersion'),
    publishAppBundleVersion: { params: { ...bundle, version_number: '1' } },
    installApp: fromFuzz('installApp'),
    getAppInstall: { params: bundle },
    uninstallApp: { params: bundle },
    enableApp: { params: bundle },
    disableApp: { params: bundle },
    putAppLink: fromFuzz('putAppLink'),
    getAppLink: { params: { link_id: 'crm' } },
    deleteAppLink: { params: { link_id: 'crm' } },
    listAppLinks: {},
    startAppSession: fromFuzz('startAppSession'),
    getAppSession: { params: session },
    reportAppSessionActivity: { params: session },
    getAppAsset: { params: { ...session, asset_name: 'index.html' } },
    startAppRun: fromFuzz('startAppRun'),
    getAppRun: { params: { ...bundle, run_id: 'r1' } },
    getAppValue: { params: { ...bundle, key: 'fuzzed' } },
    putAppValue: fromFuzz('putAppValue'),
    deleteAppValue: { params: { ...bundle, key: 'fuzzed' } },
  };
}

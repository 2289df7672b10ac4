/**
 * The soak's twin, in a process of its own (started by test/soak/run.ts through
 * bench/import-twin.ts): the twin as `npm start` runs it, with the bucket the soak's CSVs and
 * exports live in, and nothing watching it from inside, so its memory and open files are the
 * twin's own. The fuzz bucket is where the hostile tenant's fixtures live (test/fuzz/fixtures.ts).
 */
import { startTwin } from '../../infra/local/twin';
import { SOURCE_BUCKET } from '../../bench/import-protocol';
import { serveToParent } from '../../bench/twin-child';
import { FUZZ_BUCKET } from '../fuzz/fixtures';

/**
 * Every job step is bounded at a minute, as a deployment bounds a tenant's runs below Lambda's
 * 15 minutes: a hostile run (a cross join, a recursive CTE) ends FAILED 10-1047 within the soak,
 * its engine stopped and its folder removed, instead of running on past the drain.
 */
const SOAK_STEP_SECONDS = 60;

serveToParent(await startTwin({ buckets: [SOURCE_BUCKET, FUZZ_BUCKET], taskTimeoutSeconds: SOAK_STEP_SECONDS }));

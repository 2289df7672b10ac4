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

serveToParent(await startTwin({ buckets: [SOURCE_BUCKET, FUZZ_BUCKET] }));

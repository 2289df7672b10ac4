/**
 * `npm start`: the whole service on this machine, no AWS account and no network. State is
 * kept under .local/ (git-ignored), so connections and credentials survive a restart; the
 * endpoints of the running stack are in .local/endpoints.json while it runs.
 *
 *   npm start -- [options]      (`npm start -- --help` lists them: start-options.ts's table)
 *
 * `--feature` sets a feature toggle's default before the API serves, as PUT
 * /admin/feature-toggles/{name}/default does (so it is kept in the data folder); it may be
 * given once per toggle. The banner says which toggles are on. `--sweep-every` (SWEEP_EVERY)
 * is how often the retention sweep runs, as the deployed schedule does (docs/retention.md): a
 * number and a unit, ms, s, m, h or d; once a day by default; `npm run sweep` runs one now.
 * The ports, the data folder and the sweep have environment settings too (PORT, DATA_DIR, …;
 * --help names each); an option given on the command line wins. The demo servers (Delta
 * Sharing, the pricing DIM and its token server) listen on 127.0.0.1 only, and the outbound
 * guard lets the connectors reach them; `--allow-outbound host:port` lets them reach another
 * server of this machine or network too.
 *
 * The AI assistant (docs/assistant.md) needs a model, which the project does not ship:
 * `--assistant-endpoint` names an OpenAI-compatible chat-completions API (a local Ollama:
 * http://127.0.0.1:11434/v1) and `--assistant-model` its model (llama3.1); `--bedrock-endpoint`
 * a Converse-compatible endpoint (https://bedrock-runtime.<region>.amazonaws.com) and
 * `--bedrock-model` the model id, called with the AWS credentials of the usual chain, resolved
 * at start, before the twin sets its stand-ins' keys. Without either, ai_assistant is unavailable. Port 0 takes a
 * free port. The ports are fixed by default so that a restart keeps every endpoint: stored
 * connections name the S3 endpoint, and AWS CLI profiles or scripts name the others.
 */
import { assertFree, portInUse, StartError, startHelp, startOptions } from './start-options';

async function main(): Promise<void> {
  process.env.POWERTOOLS_LOG_LEVEL ??= 'INFO';
  const options = startOptions();
  if (options === 'help') {
    process.stdout.write(startHelp());
    return;
  }
  try {
    for (const port of Object.values(options.ports)) await assertFree(port);
  } catch (error) {
    throw portInUse(error, options.ports) ?? error;
  }
  // Loaded once the options are known to be good: a mistake above is told without loading the stack (2 s of CPU).
  const { runStack } = await import('./run-stack');
  await runStack(options);
}

main().catch((error: unknown) => {
  if (error instanceof StartError) {
    process.stderr.write(`npm start: ${error.message}\n`);
    process.exit(error.exitCode);
  }
  process.stderr.write(`local twin failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});

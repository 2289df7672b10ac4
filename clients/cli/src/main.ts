/**
 * dps, the command line of the Data Preparation Service. The command table (commands-*.ts) is
 * turned into commander commands here; what a command needs to run (the client, the progress
 * bar, reading secrets) is imported only when one runs, so `dps --help` starts fast.
 *
 * Exit codes: 0 done; 1 an unexpected failure (the service unreachable); 2 a usage error;
 * 3 the service refused (its catalogue code and message on stderr); 4 a job ended FAILED or
 * ABORTED; 130 a wait stopped by Ctrl-C (the job goes on).
 */
import { Command, CommanderError, Option } from 'commander';
import { connections, dataSources, tables } from './commands-data';
import { datasets, recipes } from './commands-chain';
import { exportsGroup, quota, retention, targets, tokens, transfers } from './commands-out';
import { single } from './commands-misc';
import { UsageError, collect, type Action, type Options } from './spec';
import type { CommandSpec, GroupSpec } from './table';

export const GROUPS: readonly GroupSpec[] = [
  connections,
  dataSources,
  tables,
  recipes,
  datasets,
  targets,
  exportsGroup,
  transfers,
  tokens,
  quota,
  retention,
];

export const EXIT = { usage: 2, refused: 3, jobFailed: 4, interrupted: 130, failure: 1 } as const;

const EXAMPLES = `
Examples:
  $ export DPS_CLIENT_ID=local.…  DPS_CLIENT_SECRET=dps_…   # the banner of npm start
  $ dps connections list
  $ dps tables import 1                  # waits, with a progress bar
  $ dps datasets run 1 1 4 --no-wait --json
  $ dps wait run 1 1 4
  $ dps completion bash >> ~/.bashrc

Profiles: dps configure [--profile name] writes ~/.config/dps/config.json (DPS_CONFIG);
DPS_BASE_URL, DPS_CLIENT_ID, DPS_CLIENT_SECRET and DPS_PROFILE override it. Secrets are
read from the environment, a file, stdin or a prompt, never from the command line.
Exit codes: 1 the service could not be reached (or another failure), 2 usage, 3 refused by the
service (code and message), 4 job failed, 130 stopped waiting.`;

async function execute(
  spec: Pick<CommandSpec, 'run' | 'job' | 'list'>,
  args: string[],
  command: Command,
): Promise<void> {
  const options = command.optsWithGlobals<
    Options & { json?: boolean; wait?: boolean; interval?: string; profile?: string; baseUrl?: string }
  >();
  const { makeContext, print, waitWithProgress } = await import('./context');
  const { followCommand } = await import('./commands-misc');
  const json = options.json === true;
  const context = await makeContext({
    ...(options.profile ? { profile: options.profile } : {}),
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
  });
  const result = await (spec.run as Action)(context, args, options);
  if (result.job === undefined) return print(result.body, json);
  if (options.wait === false) {
    print(result.body, json);
    process.stderr.write(`Started; follow it with: ${followCommand(result.job)}\n`);
    return;
  }
  const interval = Number(options.interval ?? 1000);
  print(await waitWithProgress(context.client, { ...result, job: result.job }, { json, intervalMs: interval }), json);
}

function addCommand(parent: Command, spec: CommandSpec): Command {
  const command = parent.command(spec.name).description(spec.description);
  for (const option of spec.options ?? []) {
    if (option.repeatable) command.option(option.flags, option.description, collect);
    else command.option(option.flags, option.description);
  }
  if (spec.list) {
    command.option('--filter <expression>', 'a filter, e.g. "name co \'sales\'" (docs/list-query.md)');
    command.option('--sort <fields>', 'sort fields, e.g. -created_date');
  }
  if (spec.job) {
    command.option('--wait', 'wait for the job, showing its progress (the default)', true);
    command.option('--no-wait', 'return once the job started, printing how to follow it');
    command.addOption(new Option('--interval <ms>', 'between polls').default('1000'));
  }
  if (spec.examples?.length)
    command.addHelpText('after', `\nExamples:\n${spec.examples.map((e) => `  $ ${e}`).join('\n')}`);
  command.action(async (...received: unknown[]) => {
    const self = received[received.length - 1] as Command;
    await execute(spec, self.args, self);
  });
  return command;
}

/** The program, with every command of the table. */
export function buildProgram(): Command {
  const program = new Command('dps')
    .description('The command line of the Data Preparation Service')
    .version('0.1.0')
    .option('--profile <name>', 'a profile of the config file')
    .option('--base-url <url>', 'the API, e.g. http://127.0.0.1:3000/api/data/v1')
    .option('--json', 'print answers as JSON, for scripts')
    .showHelpAfterError()
    // Before the commands are added: subcommands copy it, so their usage errors reach report().
    .exitOverride()
    .addHelpText('after', EXAMPLES);
  for (const group of GROUPS) {
    const parent = program.command(group.name).description(group.description);
    for (const spec of group.commands) addCommand(parent, spec);
  }
  addCommand(program, { ...single.wait, run: single.wait.run as Action, job: true });
  addCommand(program, { ...single.call, run: single.call.run as unknown as Action });
  program
    .command('configure')
    .description(
      'Save a profile: base URL and client id; the secret is read from DPS_CLIENT_SECRET, a file, stdin or a prompt',
    )
    .option('--client-id <id>', 'the client id')
    .option('--client-secret-file <path>', 'a file holding the client secret')
    .addHelpText(
      'after',
      '\nExamples:\n  $ dps configure --client-id local.abc --base-url http://127.0.0.1:3000/api/data/v1   # prompts for the secret',
    )
    .action(async (_options: Options, command: Command) => {
      const options = command.optsWithGlobals<Options & { profile?: string; baseUrl?: string }>();
      const { writeProfile, configPath, DEFAULT_BASE_URL } = await import('./config');
      const { readSecret } = await import('./context');
      const profile = options.profile ?? 'default';
      if (typeof options.clientId !== 'string') throw new UsageError('--client-id is required');
      const secret = await readSecret('client secret', 'DPS_CLIENT_SECRET', options.clientSecretFile);
      await writeProfile(profile, {
        base_url: options.baseUrl ?? DEFAULT_BASE_URL,
        client_id: options.clientId,
        client_secret: secret,
      });
      process.stderr.write(`profile ${profile} saved in ${configPath()}\n`);
    });
  program
    .command('completion <shell>')
    .description('Print shell completion for bash or zsh')
    .addHelpText(
      'after',
      '\nExamples:\n  $ dps completion bash >> ~/.bashrc\n  $ dps completion zsh > "${fpath[1]}/_dps"',
    )
    .action(async (shell: string) => {
      const { completionScript } = await import('./completion');
      process.stdout.write(completionScript(shell, program));
    });
  return program;
}

/** Runs dps with `argv` (process.argv's shape) and answers its exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (error) {
    return report(error);
  }
}

async function report(error: unknown): Promise<number> {
  if (error instanceof CommanderError)
    return error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.exitCode === 0
      ? 0
      : EXIT.usage;
  if (error instanceof UsageError) {
    process.stderr.write(`dps: ${error.message}\n`);
    return EXIT.usage;
  }
  const json = process.argv.includes('--json');
  const name = (error as { name?: string } | null)?.name;
  if (name === 'ProblemError') {
    const problem = error as { code: string; status: number; detail: string; problem: unknown };
    process.stderr.write(`dps: refused (${problem.status}) ${problem.code}: ${problem.detail}\n`);
    if (json) process.stdout.write(`${JSON.stringify(problem.problem, null, 2)}\n`);
    return EXIT.refused;
  }
  if (name === 'JobFailedError') {
    const failed = error as { status: string; code: string; detail: string; resource: unknown };
    process.stderr.write(`dps: job ${failed.status} ${failed.code}: ${failed.detail}\n`);
    if (json) process.stdout.write(`${JSON.stringify(failed.resource, null, 2)}\n`);
    return EXIT.jobFailed;
  }
  if (name === 'WaitStopped') {
    process.stderr.write(`\n${(error as Error).message}\n`);
    return EXIT.interrupted;
  }
  const cause = (error as { cause?: { code?: string; message?: string } } | null)?.cause;
  const why = cause?.code ?? cause?.message;
  // fetch's own words for a connection that never answered ("fetch failed") say nothing of what failed.
  const what =
    error instanceof TypeError && error.message === 'fetch failed'
      ? 'the service could not be reached'
      : error instanceof Error
        ? error.message
        : String(error);
  process.stderr.write(`dps: ${what}${why ? ` (${why})` : ''}\n`);
  return EXIT.failure;
}

/**
 * The state machines of the jobs (functions/jobs.ts), as both CDK and the local twin see
 * them: each job's definition, rendered from its own ASL file or the single-step template,
 * with its job-local names replaced by the global placeholders (`${<Worker>FunctionArn}`)
 * that CDK fills with deployed ARNs and the twin with its own handlers. A job whose worker may
 * run on Fargate gets its launch Choice and task step here too (infra/fargate-branch.ts), and one
 * whose worker hands Athena queries over its query step (infra/athena-branch.ts).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RECORD_JOB_FAILURE } from '../functions/jobs';
import {
  runsOnFargate,
  taskDefinitionPlaceholder,
  workerPlaceholder,
  type JobDeclaration,
  type WorkerSpec,
} from '../shared/jobs/define-job';
import { withAthenaQueries } from './athena-branch';
import { ENGINE_NETWORK_PLACEHOLDERS, withFargateBranch } from './fargate-branch';

export const STATE_MACHINES_DIR = fileURLToPath(new URL('../statemachines', import.meta.url));
/** The shape of a job that is one worker step with retries and a recorded failure. */
export const SINGLE_STEP_TEMPLATE = join(STATE_MACHINES_DIR, 'templates', 'single-step.asl.json');

export interface JobMachine {
  /** The job's name: the machine's name, and its ARN variable's stem. */
  readonly name: string;
  /** Where the definition comes from (for messages). */
  readonly source: string;
  /** The ASL JSON text with global `${...}` placeholders. */
  readonly definition: string;
  readonly placeholders: readonly string[];
}

const PLACEHOLDER = /\$\{([A-Za-z0-9]+)\}/g;

/** The job-local names an ASL file of a job may use, and what they stand for. */
function jobLocalValues(job: JobDeclaration): Record<string, string> {
  return {
    WorkerFunctionArn: `\${${workerPlaceholder(job.worker)}}`,
    RecordJobFailureFunctionArn: `\${${workerPlaceholder(RECORD_JOB_FAILURE)}}`,
    Description: JSON.stringify(job.description).slice(1, -1),
  };
}

/** The definition of one job's state machine. */
export function jobMachine(job: JobDeclaration): JobMachine {
  const source =
    job.definitionFile === undefined ? SINGLE_STEP_TEMPLATE : resolve(STATE_MACHINES_DIR, job.definitionFile);
  const local = jobLocalValues(job);
  // The Athena branch first: the Fargate branch's task step then goes where the work step goes.
  const definition = withFargateBranch(
    withAthenaQueries(
      readFileSync(source, 'utf8').replace(PLACEHOLDER, (text, key: string) => local[key] ?? text),
      job.worker,
    ),
    job.worker,
  );
  const placeholders = [...new Set([...definition.matchAll(PLACEHOLDER)].map((match) => match[1]!))];
  return { name: job.name, source, definition, placeholders };
}

/**
 * The machines of the jobs, checked: job names are unique, and every placeholder names one of
 * the workers (or a Fargate worker's task definition, or the engine cluster's network), so a
 * definition cannot deploy with an unfilled `${...}`.
 */
export function jobMachines(jobs: readonly JobDeclaration[], workers: readonly WorkerSpec[]): JobMachine[] {
  const names = new Set<string>();
  for (const job of jobs) {
    if (names.has(job.name)) throw new Error(`job ${job.name} is declared twice`);
    names.add(job.name);
  }
  const workerNames = new Set<string>();
  for (const worker of workers) {
    if (workerNames.has(worker.name)) throw new Error(`worker ${worker.name} is declared twice`);
    workerNames.add(worker.name);
  }
  const known = new Set([
    ...workers.map(workerPlaceholder),
    ...workers.filter(runsOnFargate).map(taskDefinitionPlaceholder),
    ...(workers.some(runsOnFargate) ? ENGINE_NETWORK_PLACEHOLDERS : []),
  ]);
  return jobs.map((job) => {
    const machine = jobMachine(job);
    const missing = machine.placeholders.filter((placeholder) => !known.has(placeholder));
    if (missing.length > 0) {
      throw new Error(
        `state machine ${machine.name} (${machine.source}) has placeholders no worker fills: ${missing.map((name) => `\${${name}}`).join(', ')}; ` +
          `workers provide: ${[...known].map((name) => `\${${name}}`).join(', ') || 'nothing (no workers)'}`,
      );
    }
    return machine;
  });
}

/** Fills `${Key}` placeholders; a placeholder without a value is a configuration error. */
export function substitute(definition: string, values: Readonly<Record<string, string>>): string {
  return definition.replace(PLACEHOLDER, (_, key: string) => {
    const value = values[key];
    if (value === undefined) throw new Error(`state machine placeholder \${${key}} has no value`);
    return value;
  });
}

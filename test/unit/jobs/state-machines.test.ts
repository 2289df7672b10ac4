/**
 * Every job's state machine, as the twin runs it, is valid Amazon States Language: checked here
 * once, with the validator aws-local-stepfunctions runs (asl-validator, ARNs and paths checked),
 * rather than at every start of the twin (infra/local/stepfunctions.ts localDefinition).
 */
import { StateMachine, type StateMachineDefinition } from 'aws-local-stepfunctions';
import { describe, expect, it } from 'vitest';
import { jobs, workersOf } from '../../../functions/jobs';
import { jobMachines } from '../../../infra/state-machines';
import { localDefinition, localWorkerArns } from '../../../infra/local/stepfunctions';

const workers = workersOf(jobs);
const arns = localWorkerArns(workers);
const validated = (definition: string) => () => new StateMachine(JSON.parse(definition) as StateMachineDefinition);

describe('the state machines of the jobs', () => {
  it.each(jobMachines(jobs, workers).map((machine) => [machine.name, machine] as const))(
    '%s is valid ASL with its workers’ ARNs filled in',
    (_, machine) => {
      expect(validated(localDefinition(machine, arns))).not.toThrow();
    },
  );

  it('are checked: a definition with a state that does not exist is refused', () => {
    const [machine] = jobMachines(jobs, workers);
    const broken = JSON.parse(localDefinition(machine!, arns)) as { StartAt: string };
    broken.StartAt = 'NoSuchState';
    expect(validated(JSON.stringify(broken))).toThrow(/State machine definition is invalid/);
  });
});

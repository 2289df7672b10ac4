/**
 * cdk-nag's AWS Solutions checks on the synthesis of api.test.ts (the whole stage): none fails,
 * and every acknowledgment is one the stage means, with its reason, on exactly the constructs
 * that need it.
 */
import { describe, expect, it } from 'vitest';
import { jobs, workersOf } from '../../functions/jobs';
import { routes } from '../../functions/routes';
import { SWEEP_ACCESS } from '../../infra/stacks/retention-stack';
import { runsOnFargate } from '../../shared/jobs/define-job';
import { awsSolutionsReport, type SynthesizedStage } from './synth';

/** The deployed workers: each job's, then the failure recorder. */
const workers = workersOf(jobs);

/** Registers the checks; `stage` answers the file's synthesis once its beforeAll has run. */
export function cdkNagChecks(stage: () => SynthesizedStage): void {
  describe('cdk-nag', () => {
    it('AWS Solutions checks pass (synthesis would have thrown), and every acknowledgment gives a reason', () => {
      const metadata = stage()
        .stack.node.findAll()
        .flatMap((construct) =>
          construct.node.metadata
            .filter((entry) => entry.type === 'aws:cdk:acknowledged-rules')
            .map((entry) => entry.data),
        );
      expect(metadata.length).toBeGreaterThan(0);
      for (const [id, reason] of metadata.flatMap((entry) => Object.entries(entry as Record<string, string>))) {
        // Besides cdk-nag's, CDK's own CloudFormation-validation acknowledgments, each with its reason
        // (the engine VPC's literal AZs, its flow log's camelCase destination options).
        expect(id).toMatch(/^AwsSolutions::AwsSolutions-|^CloudFormation-Validate::[EFW]\d+$/);
        expect(reason.length, id).toBeGreaterThan(20);
      }
      const nag = awsSolutionsReport(stage());
      expect(nag.conclusion).toBe('success');
      expect(nag.violations).toEqual([]);
      // Acknowledged: the runtime pin, the public routes, the data bucket's objects, and the
      // functions' and state machines' log delivery and X-Ray actions on '*'.
      // Cancels stop executions, named at run time, of exactly one machine each (shared/jobs/cancel.ts).
      const executions =
        /^AwsSolutions-IAM5\[Resource::arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:.+:\*\]$/;
      const stopping = nag.suppressedViolations.filter((violation) => executions.test(violation.ruleName));
      expect(stopping.flatMap((violation) => violation.violatingConstructs)).toHaveLength(
        routes.flatMap((route) => route.access.stopsJobs ?? []).length,
      );
      const others = nag.suppressedViolations.filter((violation) => !executions.test(violation.ruleName));
      expect(new Set(others.map((violation) => violation.ruleName))).toEqual(
        new Set([
          'AwsSolutions-L1',
          'AwsSolutions-APIG4',
          'AwsSolutions-IAM5[Resource::<DataBucketArn>/*]',
          // The app routes' objects: only the apps/ prefix (docs/apps.md).
          'AwsSolutions-IAM5[Resource::<DataBucketArn>/apps/*]',
          'AwsSolutions-IAM5[Resource::*]',
          // The engine tasks (infra/stacks/engine-tasks.ts): the endpoints' group takes HTTPS from
          // the VPC only, the task's variables name no secret, the pull-through cache's images, and
          // the cluster's tasks a machine follows and stops.
          'AwsSolutions-EC23',
          'AwsSolutions-ECS2',
          expect.stringMatching(
            /^AwsSolutions-IAM5\[Resource::arn:<AWS::Partition>:ecr:.+:repository\/ecr-public-[0-9a-f]+\/\*\]$/,
          ),
          expect.stringMatching(
            /^AwsSolutions-IAM5\[Resource::arn:<AWS::Partition>:ecs:.+:task\/<EngineTasksCluster[0-9A-F]+>\/\*\]$/,
          ),
          // The stage's schedule group: one schedule per tenant schedule, named at run time (infra/stacks/schedule-access.ts).
          'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:<AWS::Region>:<AWS::AccountId>:schedule/data-preparation-test/*]',
        ]),
      );
      // The objects acknowledgment is on exactly the functions and tasks that declare data bucket access,
      // naming the prefix they are held to, if any.
      const acknowledged = (prefix: string) =>
        nag.suppressedViolations
          .filter((violation) => violation.ruleName === `AwsSolutions-IAM5[Resource::<DataBucketArn>/${prefix}*]`)
          .flatMap((violation) => violation.violatingConstructs);
      // A worker that may run on Fargate holds its grants twice: its function's role and its task's.
      const tasks = workers.filter(runsOnFargate);
      const withBucket = [...routes, ...workers, ...tasks, { access: SWEEP_ACCESS }].filter(
        (subject) => subject.access.dataBucket !== undefined,
      );
      const underApps = withBucket.filter((subject) => subject.access.dataBucketPrefix === 'apps/');
      expect(acknowledged('')).toHaveLength(withBucket.length - underApps.length);
      expect(acknowledged('apps/')).toHaveLength(underApps.length);
      const publicRoutes = nag.suppressedViolations.filter((violation) => violation.ruleName === 'AwsSolutions-APIG4');
      expect(publicRoutes.flatMap((violation) => violation.violatingConstructs)).toHaveLength(
        routes.filter((route) => route.permission === null).length + 1,
      );
    });
  });
}

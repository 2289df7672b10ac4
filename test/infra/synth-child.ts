/**
 * Synthesizes a stage into a given cloud assembly folder and exits: run by synth-bundled.ts in
 * a child process, so that CDK's synchronous bundling does not hold the test process. Beside
 * the assembly it writes nested-stacks.json: each nested stack's construct id, the logical id
 * of its stack resource in the root template and its template file.
 * Argument: the JSON of a ChildSynthesis.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NestedStack, Stack, type CfnElement } from 'aws-cdk-lib';
import { routes } from '../../functions/routes';
import { NESTED_INDEX, type ChildSynthesis, type NestedStackFile } from './synth-bundled';
import { buildApp } from './synth';

const request = JSON.parse(process.argv[2] ?? '{}') as ChildSynthesis;
const selected =
  request.operationIds === undefined
    ? {}
    : { routes: routes.filter((route) => request.operationIds!.includes(route.operationId)) };
const { app, stack } = buildApp(request.assemblyDir, {
  stage: request.stage,
  nag: request.nag,
  bundle: request.bundle,
  ...selected,
});
app.synth();
const nested = stack.node
  .findAll()
  .filter((construct): construct is NestedStack => NestedStack.isNestedStack(construct))
  .map((nestedStack): NestedStackFile => {
    const resource = nestedStack.nestedStackResource as CfnElement;
    return {
      name: nestedStack.node.id,
      logicalId: Stack.of(resource).resolve(resource.logicalId) as string,
      file: nestedStack.templateFile,
    };
  });
writeFileSync(join(request.assemblyDir, NESTED_INDEX), JSON.stringify(nested));

import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { readFileSync } from 'node:fs';
import { DataPreparationStack } from '../../infra/stacks/data-preparation-stack';
import { routes } from '../../functions/routes';
const ctx = JSON.parse(readFileSync('/work/main/cdk.json', 'utf8')).context;
const app = new App({ context: ctx, outdir: '/tmp/jobs-out', analyticsReporting: false });
const t0 = Date.now();
new DataPreparationStack(app, 'DataPreparation-t', { stage: 't', routes: routes.filter(r => r.tag === 'meta'), stateMachinesDir: '/work/main/test/infra/fixtures/statemachines', workers: [
 { name: 'import-worker', handler: 'meta/not-found', timeoutSeconds: 900, memoryMb: 2048, access: { table: 'write', dataKey: ['decrypt'] } },
 { name: 'record-failure', handler: 'meta/not-found', timeoutSeconds: 60, memoryMb: 256, access: { table: 'write' } },
 { name: 'export-worker', handler: 'meta/not-found', timeoutSeconds: 900, memoryMb: 2048, access: { table: 'read' } },
]});
console.log('construct', Date.now() - t0);
if (!process.env.NO_NAG) Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
console.log('synth', Date.now() - t0);

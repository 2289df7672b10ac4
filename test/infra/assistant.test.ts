/**
 * The AI assistant as deployed (docs/assistant.md): the route that asks the model may invoke
 * exactly the stage's Bedrock model (ASSISTANT_BEDROCK_MODEL_ID), with bedrock:InvokeModel
 * only; no other function may call Bedrock, and a stage without a model grants none at all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversationRoutes } from '../../functions/conversations/routes';
import { parseSettings } from '../../infra/stacks/settings';
import {
  actionsOf,
  awsSolutionsReport,
  functionOf,
  grants,
  SYNTH_TIMEOUT_MS,
  synthesize,
  type SynthesizedStage,
} from './synth';

const ROUTES = Object.values(conversationRoutes);
const MODEL_ID = 'anthropic.claude-3-5-haiku-20241022-v1:0';
let withModel: SynthesizedStage;
let withoutModel: SynthesizedStage;

beforeAll(() => {
  withModel = synthesize({
    stage: 'assistant',
    routes: ROUTES,
    jobs: [],
    nag: true,
    bundle: false,
    settings: parseSettings({ ASSISTANT_BEDROCK_MODEL_ID: MODEL_ID }),
  });
  withoutModel = synthesize({ stage: 'no-assistant', routes: ROUTES, jobs: [], bundle: false });
}, SYNTH_TIMEOUT_MS);
afterAll(() => {
  withModel?.close();
  withoutModel?.close();
});

const bedrockGrants = (stage: SynthesizedStage, handler: string) =>
  grants(functionOf(stage, handler)).filter((grant) => grant.action.startsWith('bedrock:'));

describe('the assistant’s model access', () => {
  it('lets the send-message route invoke the configured model only', () => {
    const granted = bedrockGrants(withModel, 'conversations/send');
    expect(granted.map((grant) => grant.action)).toEqual(['bedrock:InvokeModel']);
    expect(JSON.stringify(granted[0]!.resource)).toContain(`::foundation-model/${MODEL_ID}`);
    expect(functionOf(withModel, 'conversations/send').environment.ASSISTANT_BEDROCK_MODEL_ID).toBe(MODEL_ID);
  });

  it('grants Bedrock to no other route', () => {
    for (const route of ROUTES.filter((candidate) => candidate.handler !== 'conversations/send'))
      expect(
        [...actionsOf(functionOf(withModel, route.handler))].filter((action) => action.startsWith('bedrock:')),
      ).toEqual([]);
  });

  it('grants none without a model', () => {
    expect(bedrockGrants(withoutModel, 'conversations/send')).toEqual([]);
  });

  it('passes cdk-nag', () => {
    const nag = awsSolutionsReport(withModel);
    expect(nag.violations).toEqual([]);
  });
});

/**
 * The Bedrock model follows the endpoint the environment names. Test files share their process
 * (vitest `isolate: false`), and each starts a fake Bedrock of its own: a client kept from the
 * first file's fake answered the next file's calls with a refused connection (502 50-1012).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { BedrockConverseModel } from '../../../shared/assistant/bedrock-model';
import type { ModelRequest } from '../../../shared/assistant/model';
import { startFakeBedrock, type FakeBedrock } from '../../fakes/bedrock-converse';

const started: FakeBedrock[] = [];
const previousEnvironment = { ...process.env };

afterEach(async () => {
  process.env = { ...previousEnvironment };
  await Promise.all(started.splice(0).map((fake) => fake.close()));
});

async function fakeInEnvironment(text: string): Promise<FakeBedrock> {
  const fake = await startFakeBedrock();
  started.push(fake);
  Object.assign(process.env, fake.environment, {
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
  });
  fake.play({ text });
  return fake;
}

const request = (): ModelRequest => ({
  system: 'Be brief.',
  turns: [{ role: 'user', text: 'Hello' }],
  tools: [],
  maxOutputTokens: 100,
  signal: AbortSignal.timeout(10_000),
});

describe('the Bedrock model', () => {
  it('asks the endpoint the environment names now, not the one it first used', async () => {
    const first = await fakeInEnvironment('from the first');
    const model = new BedrockConverseModel(first.modelId);
    expect((await model.answer(request())).text).toBe('from the first');
    await first.close();

    const second = await fakeInEnvironment('from the second');
    expect((await model.answer(request())).text).toBe('from the second');
    expect(second.requests).toHaveLength(1);
  });
});

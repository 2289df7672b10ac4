import { config } from '../config';
import { featureOff } from '../features/store';
import { BedrockConverseModel } from './bedrock-model';
import { ChatCompletionsModel } from './chat-completions-model';
import type { AssistantModel } from './model';

let current: { readonly key: string; readonly model: AssistantModel } | undefined;

/**
 * The model the stage configured: the chat-completions endpoint when ASSISTANT_CHAT_ENDPOINT
 * is set (a local model wins over a stage default), else Bedrock with
 * ASSISTANT_BEDROCK_MODEL_ID. With neither, the ai_assistant toggle is unavailable
 * (shared/features/catalogue.ts) and this answers 10-1501 naming it.
 */
export function configuredModel(): AssistantModel {
  const { bedrockModelId, chatEndpoint, chatModel } = config.assistant;
  const key = `${chatEndpoint}\n${chatModel}\n${bedrockModelId}`;
  if (current?.key !== key) {
    if (chatEndpoint !== '') current = { key, model: new ChatCompletionsModel(chatEndpoint, chatModel) };
    else if (bedrockModelId !== '') current = { key, model: new BedrockConverseModel(bedrockModelId) };
    else throw featureOff('ai_assistant');
  }
  return current.model;
}

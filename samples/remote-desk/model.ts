import { AnthropicModel, OpenAIChatModel, type Model } from 'toolwright';
import { accountDeskModel } from './script';

/** A real model when the environment names one (as the support desk's), else the embedded script. */
export function selectModel(env: NodeJS.ProcessEnv = process.env): Model {
  if (env.OPENAI_BASE_URL || env.OPENAI_API_KEY)
    return new OpenAIChatModel({
      model: env.OPENAI_MODEL ?? 'gpt-4.1-mini',
      baseURL: env.OPENAI_BASE_URL || undefined,
      apiKey: env.OPENAI_API_KEY,
    });
  if (env.ANTHROPIC_API_KEY)
    return new AnthropicModel({ model: env.ANTHROPIC_MODEL ?? 'claude-sonnet-4-6', apiKey: env.ANTHROPIC_API_KEY });
  return accountDeskModel();
}

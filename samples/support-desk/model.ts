import { AnthropicModel, OpenAIChatModel, ScriptedModel, type Model } from 'toolwright';
import { billingModel, supportDeskModel } from './script';

/**
 * The real model when the environment names one, else the embedded script:
 * OPENAI_BASE_URL and/or OPENAI_API_KEY (OPENAI_MODEL, default gpt-4.1-mini; a local
 * llama.cpp / vLLM / Ollama server through OPENAI_BASE_URL), or ANTHROPIC_API_KEY
 * (ANTHROPIC_MODEL, default claude-sonnet-4-6). `embedded`: the script of another sample.
 */
export function selectModel(env: NodeJS.ProcessEnv = process.env, embedded: () => Model = supportDeskModel): Model {
  if (env.OPENAI_BASE_URL || env.OPENAI_API_KEY) {
    return new OpenAIChatModel({
      model: env.OPENAI_MODEL ?? 'gpt-4.1-mini',
      baseURL: env.OPENAI_BASE_URL || undefined,
      apiKey: env.OPENAI_API_KEY,
    });
  }
  // The key is passed explicitly: without it the Anthropic SDK goes looking for credential files on disk.
  if (env.ANTHROPIC_API_KEY)
    return new AnthropicModel({ model: env.ANTHROPIC_MODEL ?? 'claude-sonnet-4-6', apiKey: env.ANTHROPIC_API_KEY });
  return embedded();
}

/** The billing sub-agent's model: the desk's real model, or billing's own embedded script beside the desk's. */
export function selectBillingModel(deskModel: Model): Model {
  return deskModel instanceof ScriptedModel ? billingModel() : deskModel;
}

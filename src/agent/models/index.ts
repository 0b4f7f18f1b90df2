/** `toolwright/models`: the Model interface, its request and response types, and the models toolwright ships. */
export { ScriptedModel } from './scripted.model';
export type { ScriptedStep, ScriptedStepFn, ScriptedToolCall, ScriptFn } from './scripted.model';
export { OpenAIChatModel } from './openai.model';
export type { OpenAIChatModelOptions, OpenAIClientLike } from './openai.model';
export { AnthropicModel } from './anthropic.model';
export type { AnthropicModelOptions, AnthropicClientLike } from './anthropic.model';
export type { Model, ModelRequest, ModelResponse, ModelStreamPart, ModelUsage, OutputFormat } from '../model';

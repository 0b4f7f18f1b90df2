/** Every metadata key toolwright writes, in one place. */
export const TOOL_OPTIONS_KEY = 'toolwright:tool';
export const PARAMS_KEY = 'toolwright:params';
export const RESOURCE_OPTIONS_KEY = 'toolwright:resource';
export const PROMPT_OPTIONS_KEY = 'toolwright:prompt';

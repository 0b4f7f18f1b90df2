/** Every metadata key toolwright writes, in one place. */
export const TOOL_OPTIONS_KEY = 'toolwright:tool';
export const PARAMS_KEY = 'toolwright:params';

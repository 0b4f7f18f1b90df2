import type { AgentContext } from '../session/agent-context';
import type { RegisteredTool } from './tool-registry';

/**
 * Registry-wide authorization, asked with the real caller's context (user, tenant, state) on every
 * surface: `false` hides the tool from listings and refuses a call to it as an unknown tool.
 */
export type AuthorizePolicy = (tool: RegisteredTool, context: AgentContext) => boolean | Promise<boolean>;

/**
 * The one gate every surface goes through (runner, MCP, CLI, adapters, direct registry calls):
 * may this caller see and call the tool? Its own `isEnabled(context)`, then the registry's `authorize`.
 */
export async function permits(tool: RegisteredTool, authorize: AuthorizePolicy | undefined, context: AgentContext): Promise<boolean> {
  if (tool.instance.isEnabled && !(await tool.instance.isEnabled(context))) return false;
  return authorize ? (await authorize(tool, context)) === true : true;
}

/** Does this call (typed, validated arguments) need a human decision before it runs? */
export async function approvalRequired(tool: RegisteredTool, input: object, context: AgentContext): Promise<boolean> {
  const policy = tool.approval as boolean | ((args: object, context: AgentContext) => boolean | Promise<boolean>) | undefined;
  if (policy === undefined || policy === false) return false;
  if (policy === true) return true;
  return (await policy(input, context)) !== false;
}

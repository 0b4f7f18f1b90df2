import type { AgentContext } from '../session/agent-context';
import { then } from './maybe-promise';
import type { RegisteredPrompt, RegisteredResource } from './registered-feature';
import type { RegisteredTool } from './registered-tool';

/** What the registry's gate decides on: a tool, a resource or template, a prompt (`kind` tells which). */
export type Authorizable = RegisteredTool | RegisteredResource | RegisteredPrompt;

/**
 * Registry-wide authorization, asked with the real caller's context (user, tenant, state) on every
 * surface: `false` hides the tool (resource, prompt) from listings and refuses a call to it as an unknown one.
 */
export type AuthorizePolicy = (target: Authorizable, context: AgentContext) => boolean | Promise<boolean>;

/**
 * The one gate every surface goes through (runner, MCP, CLI, adapters, direct registry calls):
 * may this caller see and call the tool? Its own `isEnabled(context)`, then the registry's `authorize`.
 */
export function permits(tool: Authorizable, authorize: AuthorizePolicy | undefined, context: AgentContext): boolean | Promise<boolean> {
  // Synchronous policies answer synchronously: the common case costs no extra tick.
  const enabled = tool.instance.isEnabled ? tool.instance.isEnabled(context) : true;
  return then(enabled, (on) => (on ? authorized(tool, authorize, context) : false));
}

function authorized(tool: Authorizable, authorize: AuthorizePolicy | undefined, context: AgentContext): boolean | Promise<boolean> {
  if (!authorize) return true;
  const verdict = authorize(tool, context);
  return then(verdict, (v) => v === true);
}

/** Does this call (typed, validated arguments) need a human decision before it runs? */
export function approvalRequired(tool: RegisteredTool, input: object, context: AgentContext): boolean | Promise<boolean> {
  const policy = tool.approval as boolean | ((args: object, context: AgentContext) => boolean | Promise<boolean>) | undefined;
  if (policy === undefined || policy === false) return false;
  if (policy === true) return true;
  // Fails closed: only an explicit `false` lets the call run without a human.
  const verdict = policy(input, context);
  return then(verdict, (v) => v !== false);
}

import type { Command } from 'commander';
import { AgentContext } from '../../session/agent-context';
import { AgentMemory } from '../../session/agent-memory';
import { loadRegistry } from '../load-registry';
import { moduleOption, stderrLog, type CliIO } from '../options';

interface CallerOptions {
  module?: string;
  user?: string;
  tenant?: string;
  session: string;
}

/** The context and memory of a CLI request, as `toolwright call` makes them. */
function caller(opts: CallerOptions): { context: AgentContext; memory: AgentMemory } {
  return {
    context: new AgentContext({ sessionId: opts.session, userId: opts.user, tenantId: opts.tenant }),
    memory: new AgentMemory({ agentName: 'cli', userId: opts.user ?? 'cli', tenantId: opts.tenant }),
  };
}

function withCaller(command: Command): Command {
  return command
    .addOption(moduleOption())
    .option('--user <id>', 'userId of the AgentContext and AgentMemory')
    .option('--tenant <id>', 'tenantId of the AgentContext')
    .option('--session <id>', 'sessionId of the AgentContext', 'cli');
}

/** `toolwright read <uri>` and `toolwright prompt <name> [json]`: a resource's contents, a prompt's messages, as JSON on stdout. */
export function addFeatureCommands(program: Command, io: CliIO): void {
  withCaller(
    program.command('read').description('Read a resource and print its contents as JSON').argument('<uri>', 'resource URI'),
  ).action(async (uri: string, opts: CallerOptions) => {
    const registry = await loadRegistry(opts.module, io.cwd);
    const { context, memory } = caller(opts);
    const read = await registry.readResource(uri, context, memory, { onLog: stderrLog(io, uri) });
    io.stdout(`${JSON.stringify(read, null, 2)}\n`);
  });
  withCaller(
    program
      .command('prompt')
      .description("Get a prompt's messages as JSON")
      .argument('<name>', 'prompt name')
      .argument('[json]', 'arguments as a JSON object of strings', '{}'),
  ).action(async (name: string, json: string, opts: CallerOptions) => {
    const registry = await loadRegistry(opts.module, io.cwd);
    const { context, memory } = caller(opts);
    // The arguments go through the prompt's own pipeline, as text: malformed JSON is INVALID_JSON, as for `call`.
    const read = await registry.getPrompt(name, json, context, memory, { onLog: stderrLog(io, name) });
    io.stdout(`${JSON.stringify(read, null, 2)}\n`);
  });
}

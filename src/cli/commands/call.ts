import type { Command } from 'commander';
import { AgentContext, type ToolProgress } from '../../session/agent-context';
import { AgentMemory } from '../../session/agent-memory';
import { loadRegistry } from '../load-registry';
import { moduleOption, parsePositiveInt, stderrLog, type CliIO } from '../options';

/** `toolwright call`: one tool call through the registry, its JSON result on stdout. */
export function addCallCommand(program: Command, io: CliIO): void {
  program
    .command('call')
    .description('Run one tool call and print its JSON result')
    .argument('<tool>', 'tool name')
    .argument('[json]', 'arguments as a JSON object', '{}')
    .addOption(moduleOption())
    .option('--user <id>', 'userId of the AgentContext and AgentMemory')
    .option('--tenant <id>', 'tenantId of the AgentContext')
    .option('--session <id>', 'sessionId of the AgentContext', 'cli')
    .option('--timeout <ms>', 'abort the call after this many milliseconds', parsePositiveInt)
    .option('--approve', 'you approve this call of a tool that needs a human decision')
    .action(
      async (
        tool: string,
        json: string,
        opts: { module?: string; user?: string; tenant?: string; session: string; timeout?: number; approve?: boolean },
      ) => {
        const registry = await loadRegistry(opts.module, io.cwd);
        const context = new AgentContext({ sessionId: opts.session, userId: opts.user, tenantId: opts.tenant });
        const memory = new AgentMemory({ agentName: 'cli', userId: opts.user ?? 'cli', tenantId: opts.tenant });
        const result = await registry.call(tool, json, context, memory, {
          timeoutMs: opts.timeout,
          toolCallId: 'cli',
          approved: opts.approve === true,
          // stdout stays the result alone; progress and logs go to stderr as they come.
          onProgress: (p) => io.stderr(formatProgress(tool, p)),
          onLog: stderrLog(io, tool),
        });
        io.stdout(`${result}\n`);
      },
    );
}

/** `[tool] 3/10 message`: one line per report (the total and message when the tool gave them). */
function formatProgress(tool: string, { progress, total, message }: ToolProgress): string {
  return `[${tool}] ${progress}${total === undefined ? '' : `/${total}`}${message ? ` ${message}` : ''}\n`;
}

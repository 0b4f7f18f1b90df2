import type { Command } from 'commander';
import { loadStudioTarget } from '../load-registry';
import { moduleOption, parseListen, type CliIO } from '../options';
import { untilSignal } from './mcp';

interface StudioCommandOptions {
  module?: string;
  listen?: { host: string; port: number };
  user?: string;
  tenant?: string;
}

/** `toolwright studio`: the module's agent (or registry) in the studio, a local web app, until Ctrl-C. */
export function addStudioCommand(program: Command, io: CliIO): void {
  program
    .command('studio')
    .description('Open the studio: tools, chat, sessions and traces in a local web app')
    .addOption(moduleOption())
    .option('--listen <[host:]port>', 'loopback address to serve on, e.g. :4983 (default: a free port on 127.0.0.1)', parseListen)
    .option('--user <id>', 'userId the page acts as at first', 'studio')
    .option('--tenant <id>', 'tenantId the page acts as at first')
    .action(async (opts: StudioCommandOptions) => {
      const target = await loadStudioTarget(opts.module, io.cwd);
      // Loaded here, not at the top: nothing of the studio is read unless it starts.
      const { createStudio } = await import('../../studio');
      const studio = await createStudio((target.agent as Parameters<typeof createStudio>[0]) ?? target.registry, {
        host: opts.listen?.host,
        port: opts.listen?.port,
        userId: opts.user,
        tenantId: opts.tenant,
      });
      io.stdout(`toolwright studio: ${studio.url}\n`);
      await (io.stopSignal ?? untilSignal());
      await studio.close();
    });
}

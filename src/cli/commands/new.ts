import type { Command } from 'commander';
import { EXIT } from '../errors';
import { scaffoldTool } from '../scaffold';
import type { CliIO } from '../options';

/** `toolwright new tool`: a tool class, its input class and a passing test. */
export function addNewCommand(program: Command, io: CliIO, setExit: (code: number) => void): void {
  const create = program.command('new').description('Scaffold new code');
  create
    .command('tool')
    .description('Scaffold a tool class, its input class and a passing test')
    .argument('<Name>', 'PascalCase name, e.g. LookupOrder')
    .option('--dir <dir>', 'directory for the tool', 'src/tools')
    .option('--test-dir <dir>', 'directory for the test', 'tests/tools')
    .option('--import <module>', 'module the files import toolwright from', 'toolwright')
    .option('--force', 'overwrite existing files')
    .action((name: string, opts: { dir: string; testDir: string; import: string; force?: boolean }) => {
      const result = scaffoldTool({ name, cwd: io.cwd, dir: opts.dir, testDir: opts.testDir, importFrom: opts.import, force: opts.force });
      io.stdout(`Created tool "${result.toolName}":\n${result.files.map((f) => `  ${f}\n`).join('')}`);
      setExit(EXIT.OK);
    });
}

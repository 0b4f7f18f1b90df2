import { Option, type Command } from 'commander';
import type { ToolDefinition } from '../../metadata/json-schema';
import type { ToolRegistry } from '../../registry/tool-registry';
import { toAnthropicTool, toGeminiFunctionDeclaration, toMcpTool, toOpenAITool } from '../../schema/providers';
import { AgentContext } from '../../session/agent-context';
import { loadRegistry } from '../load-registry';
import { moduleOption, type CliIO } from '../options';

const FORMATS = ['text', 'json', 'openai', 'anthropic', 'gemini', 'mcp'] as const;
type Format = (typeof FORMATS)[number];

/** `toolwright list`: the tools this caller may see, as text or in a provider's format. */
export function addListCommand(program: Command, io: CliIO): void {
  program
    .command('list')
    .description('List the tools and their schemas')
    .addOption(moduleOption())
    .addOption(new Option('-f, --format <format>', 'output format').choices(FORMATS).default('text'))
    .option('--strict', 'with --format openai or anthropic: strict-mode schemas')
    .option('--user <id>', 'list what this userId may use')
    .option('--tenant <id>', 'list what this tenantId may use')
    .action(async (opts: { module?: string; format: Format; strict?: boolean; user?: string; tenant?: string }) => {
      const registry = await loadRegistry(opts.module, io.cwd);
      // The registry's gate decides what this caller sees, as on every other surface.
      const context = new AgentContext({ sessionId: 'cli', userId: opts.user, tenantId: opts.tenant });
      const names = new Set((await registry.visible(context)).map((t) => t.name));
      io.stdout(formatList(registry, opts.format, opts.strict === true, names));
      // The provider formats are tool lists; the text lists this caller's resources and prompts too.
      if (opts.format === 'text') io.stdout(await describeFeatures(registry, context));
    });
}

function formatList(registry: ToolRegistry, format: Format, strict: boolean, names: ReadonlySet<string>): string {
  const defs = registry.definitions().filter((d) => names.has(d.name));
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  switch (format) {
    case 'json':
      return json(defs);
    case 'openai':
      return json(defs.map((d) => toOpenAITool(d, { strict })));
    case 'anthropic':
      return json(defs.map((d) => toAnthropicTool(d, { strict })));
    case 'gemini':
      return json(defs.map(toGeminiFunctionDeclaration));
    case 'mcp':
      return json(defs.map(toMcpTool));
    case 'text':
      return defs.map((d) => describeTool(registry, d)).join('\n');
  }
}

function describeTool(registry: ToolRegistry, def: ToolDefinition): string {
  const hints = Object.entries(registry.describe(def.name).annotations ?? {})
    .filter(([key, value]) => value === true && key.endsWith('Hint'))
    .map(([key]) => key.replace(/Hint$/, ''));
  const lines = [`${def.name}${hints.length ? ` [${hints.join(', ')}]` : ''}`, `  ${def.description}`];
  const required = new Set(def.parameters.required ?? []);
  const properties = Object.entries(def.parameters.properties ?? {});
  if (properties.length === 0) lines.push('  (no parameters)');
  for (const [name, schema] of properties) {
    const type = Array.isArray(schema.type) ? schema.type.join('|') : (schema.type ?? (schema.enum ? 'enum' : 'any'));
    const description = schema.description ? `  ${schema.description}` : '';
    lines.push(`  - ${name}: ${type}${required.has(name) ? '' : ' (optional)'}${description}`);
  }
  if (def.outputSchema) lines.push('  returns: a declared output contract');
  return `${lines.join('\n')}\n`;
}

/** The resources, templates and prompts this caller may use, one line each with their arguments. */
async function describeFeatures(registry: ToolRegistry, context: AgentContext): Promise<string> {
  const lines: string[] = [];
  const resources = await registry.visibleResources(context);
  if (resources.length > 0) lines.push('', 'Resources:');
  for (const r of resources) lines.push(`${r.uri ?? r.uriTemplate} (${r.name})${r.description ? `  ${r.description}` : ''}`);
  const prompts = await registry.visiblePrompts(context);
  if (prompts.length > 0) lines.push('', 'Prompts:');
  for (const p of prompts) {
    const args = p.arguments.map((a) => (a.required ? a.name : `${a.name}?`)).join(', ');
    lines.push(`${p.name}(${args})  ${p.description}`);
  }
  return lines.length > 0 ? `${lines.join('\n')}\n` : '';
}

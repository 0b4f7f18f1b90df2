/**
 * Resources, resource templates and prompts written as an app would, behind one `authorize`
 * policy (admin-tagged ones are root's only): for the registry tests, the MCP tests in process,
 * and the stateless MCP worker processes.
 */
import 'reflect-metadata';
import { IsIn, IsOptional, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { Container, Service } from 'typedi';
import {
  Param,
  Prompt,
  Resource,
  ResourceTemplate,
  Tool,
  ToolContent,
  ToolRegistry,
  type AgentContext,
  type PromptAnswer,
  type PromptInterface,
  type ResourceInterface,
  type ToolInterface,
} from '../../src';

/** An app service the classes get from the container. */
@Service()
export class NotesService {
  readonly topics = ['billing', 'bugs', 'build', 'release'];
  private readonly changed = new Set<(uri: string) => void>();

  onChange(listener: (uri: string) => void): void {
    this.changed.add(listener);
  }

  touch(uri: string): void {
    for (const listener of this.changed) listener(uri);
  }
}

class None {}

@Resource({ uri: 'notes://readme', name: 'readme', description: 'How the notes work', mimeType: 'text/markdown' })
export class ReadmeResource implements ResourceInterface {
  read(): string {
    return '# Notes\nOne note per owner and id.';
  }
}

@Resource({ uri: 'notes://logo', name: 'logo', description: 'The logo', mimeType: 'image/png' })
export class LogoResource implements ResourceInterface {
  read(): Uint8Array {
    return new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 255]);
  }
}

export class NoteVariables {
  @Param({ description: 'Whose note' })
  @IsIn(['alice', 'bob'])
  owner!: string;

  @Param({ description: 'The note id, n and up to four digits' })
  @IsString()
  @Matches(/^n[0-9]{1,4}$/)
  noteId!: string;
}

/** Counts its reads in the session's state: what a read writes is kept, as a tool call's is. */
@ResourceTemplate({ uriTemplate: 'notes://{owner}/{noteId}', name: 'note', description: 'One note', input: NoteVariables })
export class NoteResource implements ResourceInterface<NoteVariables> {
  read({ owner, noteId }: NoteVariables, context: AgentContext): object {
    const reads = (context.getState<number>('reads') ?? 0) + 1;
    context.setState('reads', reads);
    context.log('info', `read ${owner}/${noteId}`);
    return { owner, noteId, reads, user: context.userId };
  }
}

@Resource({ uri: 'notes://admin', name: 'admin_notes', description: 'For root only', tags: ['admin'] })
export class AdminResource implements ResourceInterface {
  read(): string {
    return 'root only';
  }
}

@Resource({ uri: 'notes://fails', name: 'fails', description: 'Always fails' })
export class FailingResource implements ResourceInterface {
  read(): never {
    throw new Error('connection to db-7 refused (password hunter2)');
  }
}

export class SummarizeArguments {
  @Param({ description: 'What to summarize' })
  @IsString()
  @MinLength(1)
  @MaxLength(50)
  topic!: string;

  @Param({ description: 'How long' })
  @IsOptional()
  @IsIn(['short', 'long'])
  style?: string;
}

@Service()
@Prompt({ name: 'summarize', description: 'Summarize a topic', input: SummarizeArguments })
export class SummarizePrompt implements PromptInterface<SummarizeArguments> {
  constructor(private readonly notes: NotesService) {}

  get({ topic, style }: SummarizeArguments): PromptAnswer {
    return {
      description: `A ${style ?? 'short'} summary`,
      messages: [
        { role: 'user', content: `Summarize ${topic} (${style ?? 'short'}).` },
        { role: 'assistant', content: ToolContent.resourceLink({ uri: 'notes://readme', name: 'readme' }) },
      ],
    };
  }

  complete(argument: string, value: string): string[] {
    return argument === 'topic' ? this.notes.topics.filter((t) => t.startsWith(value)) : [];
  }
}

@Prompt({ name: 'admin_prompt', description: 'For root only', input: None, tags: ['admin'] })
export class AdminPrompt implements PromptInterface {
  get(): PromptAnswer {
    return 'root only';
  }
}

/** Answers a message with a role MCP does not have. */
@Prompt({ name: 'broken', description: 'Answers an invalid message', input: None })
export class BrokenPrompt implements PromptInterface {
  get(): PromptAnswer {
    return [{ role: 'system' as 'user', content: 'not a role' }];
  }
}

class TouchInput {
  @Param({ description: 'The URI that changed' })
  @IsString()
  uri!: string;
}

/** A tool whose side effect changes a resource: subscribers are told through the service. */
@Service()
@Tool({ name: 'touch_note', description: 'Marks a note changed', input: TouchInput })
export class TouchTool implements ToolInterface<TouchInput> {
  constructor(private readonly notes: NotesService) {}

  execute({ uri }: TouchInput): object {
    this.notes.touch(uri);
    return { touched: uri };
  }
}

export const FEATURE_RESOURCES = [ReadmeResource, LogoResource, NoteResource, AdminResource, FailingResource];
export const FEATURE_PROMPTS = [SummarizePrompt, AdminPrompt, BrokenPrompt];

/** The fixtures in one registry, admin-tagged entries for root only; a touched URI tells subscribers. */
export function featureRegistry(): ToolRegistry {
  const registry = ToolRegistry.build({
    tools: [TouchTool],
    resources: FEATURE_RESOURCES,
    prompts: FEATURE_PROMPTS,
    authorize: (target, context) => !target.tags.includes('admin') || context.userId === 'root',
  });
  Container.get(NotesService).onChange((uri) => registry.resourceUpdated(uri));
  return registry;
}

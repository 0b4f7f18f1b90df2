/**
 * Resources, resource templates and prompts in the registry: build-time checks that name the fix,
 * the tool input pipeline on their arguments (class-validator as the oracle), the same gate as
 * tools, bounded and typed failures.
 */
import 'reflect-metadata';
import { IsIn, IsInt, IsString, Matches, validateSync } from 'class-validator';
import fc from 'fast-check';
import {
  AgentContext,
  Param,
  Prompt,
  PromptNotFoundError,
  Resource,
  ResourceNotFoundError,
  ResourceTemplate,
  ToolDefinitionError,
  ToolRegistry,
  type ClassType,
  type PromptInterface,
  type ResourceInterface,
} from '../../src';
import { FEATURE_PROMPTS, FEATURE_RESOURCES, featureRegistry, NoteVariables } from '../support/feature-fixtures';

const registry = featureRegistry();
const alice = () => new AgentContext({ sessionId: 's-alice', userId: 'alice' });
const root = () => new AgentContext({ sessionId: 's-root', userId: 'root' });

/** A class with a decorator applied, as `@X(...)` would. */
function decorated(decorator: ClassDecorator, cls: ClassType): ClassType {
  decorator(cls);
  return cls;
}

function build(options: { resources?: ClassType[]; prompts?: ClassType[] }): () => ToolRegistry {
  return () => ToolRegistry.build({ tools: [], ...options });
}

describe('build-time checks name the class and the fix', () => {
  class Plain {
    read(): string {
      return '';
    }
  }
  class Numbers {
    @Param()
    @IsInt()
    count!: number;
  }
  class Id {
    @Param()
    @IsString()
    id!: string;
  }

  it.each<[string, () => ToolRegistry, RegExp]>([
    ['an undecorated class', build({ resources: [Plain] }), /Plain is not a resource\. Add @Resource/],
    ['a prompt class without @Prompt', build({ prompts: [Plain] }), /Plain is not a prompt\. Add @Prompt/],
    [
      'a resource without read',
      build({ resources: [decorated(Resource({ uri: 'x://a', name: 'a' }), class NoRead {})] }),
      /NoRead has no read\(args, context, memory\) method/,
    ],
    [
      'a relative URI',
      build({ resources: [decorated(Resource({ uri: 'readme', name: 'a' }), class Rel extends Plain {})] }),
      /needs an absolute uri/,
    ],
    [
      'a bad MIME type',
      build({ resources: [decorated(Resource({ uri: 'x://a', name: 'a', mimeType: 'text' }), class Mime extends Plain {})] }),
      /mimeType "text" is not a MIME type/,
    ],
    [
      'a template operator',
      build({
        resources: [decorated(ResourceTemplate({ uriTemplate: 'x://{+path}', name: 'a', input: Id }), class Op extends Plain {})],
      }),
      /only simple variables such as \{id\}/,
    ],
    [
      'template variables that are not the input properties',
      build({
        resources: [decorated(ResourceTemplate({ uriTemplate: 'x://{key}', name: 'a', input: Id }), class Vars extends Plain {})],
      }),
      /names \{key\} but its input class has id/,
    ],
    [
      'a prompt argument that is not a string',
      build({
        prompts: [
          decorated(
            Prompt({ name: 'p', description: 'd', input: Numbers }),
            class P {
              get(): string {
                return '';
              }
            },
          ),
        ],
      }),
      /Numbers\.count is "integer", but MCP sends prompt "p" arguments as strings/,
    ],
    [
      'two resources of one name',
      build({
        resources: [
          decorated(Resource({ uri: 'x://a', name: 'same' }), class A extends Plain {}),
          decorated(Resource({ uri: 'x://b', name: 'same' }), class B extends Plain {}),
        ],
      }),
      /Duplicate resource name "same": A and B/,
    ],
    [
      'two resources at one URI',
      build({
        resources: [
          decorated(Resource({ uri: 'x://a', name: 'one' }), class C extends Plain {}),
          decorated(Resource({ uri: 'x://a', name: 'two' }), class D extends Plain {}),
        ],
      }),
      /C and D both serve "x:\/\/a"/,
    ],
  ])('%s', (_what, make, message) => {
    expect(make).toThrow(ToolDefinitionError);
    expect(make).toThrow(message);
  });
});

describe('reading resources', () => {
  it('answers text with its MIME type, bytes as base64, any other value as JSON', async () => {
    await expect(registry.readResource('notes://readme')).resolves.toEqual({
      contents: [{ uri: 'notes://readme', mimeType: 'text/markdown', text: '# Notes\nOne note per owner and id.' }],
    });
    const logo = await registry.readResource('notes://logo');
    expect(logo.contents[0]).toEqual({
      uri: 'notes://logo',
      mimeType: 'image/png',
      blob: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 255]).toString('base64'),
    });
    const note = await registry.readResource('notes://alice/n12', alice());
    expect(note.contents[0].mimeType).toBe('application/json');
    expect(JSON.parse((note.contents[0] as { text: string }).text)).toEqual({ owner: 'alice', noteId: 'n12', reads: 1, user: 'alice' });
  });

  it('decodes percent-encoded variables and refuses malformed encodings as unknown URIs', async () => {
    const note = await registry.readResource('notes://%61lice/n1');
    expect(JSON.parse((note.contents[0] as { text: string }).text)).toMatchObject({ owner: 'alice' });
    await expect(registry.readResource('notes://%E0%A4%A/n1')).rejects.toBeInstanceOf(ResourceNotFoundError);
    await expect(registry.readResource('notes://alice/n1/extra')).rejects.toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
  });

  it("validates template variables with class-validator's verdict (property-based)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('alice', 'bob', 'carol', ''), fc.string({ maxLength: 8 }), async (owner, noteId) => {
        const oracle = Object.assign(new NoteVariables(), { owner, noteId });
        const valid = validateSync(oracle).length === 0;
        const uri = `notes://${encodeURIComponent(owner)}/${encodeURIComponent(noteId)}`;
        const outcome = await registry.readResource(uri).then(
          () => 'read',
          (error: { code: string }) => error.code,
        );
        // An empty variable names no resource at all; otherwise the verdict is class-validator's.
        if (owner === '' || noteId === '') expect(outcome).toBe('RESOURCE_NOT_FOUND');
        else expect(outcome).toBe(valid ? 'read' : 'INVALID_ARGUMENTS');
      }),
      { numRuns: 200 },
    );
  });

  it('answers field errors worded for a resource', async () => {
    await expect(registry.readResource('notes://carol/n1')).rejects.toMatchObject({
      code: 'INVALID_ARGUMENTS',
      message: expect.stringMatching(/^Invalid arguments for resource "note"/),
      errors: [expect.objectContaining({ path: 'owner', constraint: 'isIn' })],
    });
  });

  it('redacts what a failing read threw, for the client; the cause stays for the app', async () => {
    const error = (await registry.readResource('notes://fails').catch((e: unknown) => e)) as {
      code: string;
      toToolResult(): string;
      cause: Error;
    };
    expect(error.code).toBe('TOOL_FAILED');
    expect(error.toToolResult()).not.toContain('hunter2');
    expect(JSON.parse(error.toToolResult()).message).toBe('Resource "fails" failed unexpectedly.');
    expect(error.cause.message).toContain('hunter2');
  });

  it('refuses a read() answer JSON cannot carry', async () => {
    @Resource({ uri: 'x://cyclic', name: 'cyclic' })
    class Cyclic implements ResourceInterface {
      read(): object {
        const a: Record<string, unknown> = {};
        a.self = a;
        return a;
      }
    }
    @Resource({ uri: 'x://nothing', name: 'nothing' })
    class Nothing implements ResourceInterface {
      read(): object {
        return undefined as unknown as object;
      }
    }
    const r = ToolRegistry.build({ tools: [], resources: [Cyclic, Nothing] });
    await expect(r.readResource('x://cyclic')).rejects.toMatchObject({ code: 'INVALID_OUTPUT' });
    await expect(r.readResource('x://nothing')).rejects.toMatchObject({
      code: 'INVALID_OUTPUT',
      message: expect.stringContaining('answered nothing'),
    });
  });
});

describe('prompts', () => {
  it('answers messages with every content a checked part, and the description', async () => {
    await expect(registry.getPrompt('summarize', { topic: 'bugs', style: 'long' })).resolves.toEqual({
      description: 'A long summary',
      messages: [
        { role: 'user', content: { type: 'text', text: 'Summarize bugs (long).' } },
        { role: 'assistant', content: { type: 'resource_link', uri: 'notes://readme', name: 'readme' } },
      ],
    });
  });

  it.each<[string, unknown, string]>([
    ['a missing argument', {}, 'topic'],
    ['a value outside the allowed ones', { topic: 'x', style: 'medium' }, 'style'],
    ['an extra argument', { topic: 'x', extra: '1' }, 'extra'],
    ['a prototype key', JSON.parse('{"topic":"x","__proto__":{"polluted":"yes"}}'), ''],
  ])('refuses %s with field errors, before get runs', async (_what, args, path) => {
    const error = (await registry.getPrompt('summarize', args as object).catch((e: unknown) => e)) as {
      code: string;
      errors?: { path: string }[];
    };
    expect(['INVALID_ARGUMENTS', 'INVALID_JSON']).toContain(error.code);
    if (path) expect(error.errors?.map((e) => e.path)).toContain(path);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses an answer with a role MCP does not have', async () => {
    await expect(registry.getPrompt('broken')).rejects.toMatchObject({
      code: 'INVALID_OUTPUT',
      message: expect.stringContaining('role "user" or "assistant"'),
    });
  });

  it('refuses an answer whose part is not content', async () => {
    @Prompt({ name: 'bad_part', description: 'd', input: class {} })
    class BadPart implements PromptInterface {
      get() {
        return [{ role: 'user' as const, content: { type: 'image', data: 'not base64!', mimeType: 'image/png' } as never }];
      }
    }
    const r = ToolRegistry.build({ tools: [], prompts: [BadPart] });
    await expect(r.getPrompt('bad_part')).rejects.toMatchObject({ code: 'INVALID_OUTPUT', message: expect.stringContaining('base64') });
  });
});

describe('the same gate as tools', () => {
  it('lists and serves an admin-tagged resource or prompt to root only, and to others as one that does not exist', async () => {
    expect((await registry.visibleResources(alice())).map((r) => r.name)).toEqual(['readme', 'logo', 'note', 'fails']);
    expect((await registry.visibleResources(root())).map((r) => r.name)).toContain('admin_notes');
    expect((await registry.visiblePrompts(alice())).map((p) => p.name)).toEqual(['summarize', 'broken']);
    await expect(registry.readResource('notes://admin', alice())).rejects.toBeInstanceOf(ResourceNotFoundError);
    await expect(registry.readResource('notes://admin', root())).resolves.toMatchObject({ contents: [{ text: 'root only' }] });
    const hidden = (await registry.getPrompt('admin_prompt', {}, alice()).catch((e: unknown) => e)) as PromptNotFoundError;
    expect(hidden).toBeInstanceOf(PromptNotFoundError);
    // The error lists only what this caller may use.
    expect(hidden.available).toEqual(['summarize', 'broken']);
    await expect(registry.complete({ type: 'ref/prompt', name: 'admin_prompt' }, { name: 'x', value: '' }, alice())).rejects.toBeInstanceOf(
      PromptNotFoundError,
    );
    await expect(registry.hasResource('notes://admin', alice())).resolves.toBe(false);
    await expect(registry.hasResource('notes://bob/n7', alice())).resolves.toBe(true);
  });

  it("asks a class's own isEnabled with the caller's context", async () => {
    @Resource({ uri: 'x://mine', name: 'mine' })
    class Mine implements ResourceInterface {
      isEnabled(context: AgentContext): boolean {
        return context.getState('member') === true;
      }
      read(): string {
        return 'members only';
      }
    }
    const r = ToolRegistry.build({ tools: [], resources: [Mine] });
    const member = new AgentContext({ sessionId: 'm' });
    member.setState('member', true);
    expect(r.featuresGated).toBe(true);
    await expect(r.readResource('x://mine', new AgentContext({ sessionId: 'n' }))).rejects.toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
    await expect(r.readResource('x://mine', member)).resolves.toMatchObject({ contents: [{ text: 'members only' }] });
  });
});

describe('completions', () => {
  it("answers the class's own completions, then an enum argument's allowed values by prefix", async () => {
    await expect(registry.complete({ type: 'ref/prompt', name: 'summarize' }, { name: 'topic', value: 'b' })).resolves.toEqual({
      values: ['billing', 'bugs', 'build'],
      total: 3,
      hasMore: false,
    });
    class Colour {
      @Param()
      @IsIn(['red', 'green', 'grey'])
      colour!: string;
    }
    @ResourceTemplate({ uriTemplate: 'paint://{colour}', name: 'paint', input: Colour })
    class Paint implements ResourceInterface<Colour> {
      read({ colour }: Colour): string {
        return colour;
      }
    }
    const r = ToolRegistry.build({ tools: [], resources: [Paint] });
    await expect(r.complete({ type: 'ref/resource', uri: 'paint://{colour}' }, { name: 'colour', value: 'gr' })).resolves.toMatchObject({
      values: ['green', 'grey'],
    });
    await expect(r.complete({ type: 'ref/resource', uri: 'paint://{colour}' }, { name: 'unknown', value: '' })).resolves.toEqual({
      values: [],
      hasMore: false,
    });
    await expect(r.complete({ type: 'ref/resource', uri: 'paint://{nope}' }, { name: 'colour', value: '' })).rejects.toMatchObject({
      code: 'RESOURCE_NOT_FOUND',
    });
  });

  it('bounds an answer to 100 values and refuses one that is not strings', async () => {
    class Q {
      @Param()
      @Matches(/.*/)
      @IsString()
      q!: string;
    }
    @Prompt({ name: 'many', description: 'd', input: Q })
    class Many implements PromptInterface<Q> {
      get(): string {
        return 'x';
      }
      complete(_argument: string, value: string): string[] {
        return value === 'numbers' ? ([1, 2] as unknown as string[]) : Array.from({ length: 250 }, (_, i) => `v${i}`);
      }
    }
    const r = ToolRegistry.build({ tools: [], prompts: [Many] });
    const answer = await r.complete({ type: 'ref/prompt', name: 'many' }, { name: 'q', value: '' });
    expect(answer).toMatchObject({ total: 250, hasMore: true });
    expect(answer.values).toHaveLength(100);
    await expect(r.complete({ type: 'ref/prompt', name: 'many' }, { name: 'q', value: 'numbers' })).rejects.toMatchObject({
      code: 'INVALID_OUTPUT',
    });
  });
});

describe('resourceUpdated', () => {
  it('tells every listener, a failing one included, and stops after the remover', () => {
    const heard: string[] = [];
    const stopFailing = registry.onResourceUpdated(() => {
      throw new Error('a closed session');
    });
    const stop = registry.onResourceUpdated((uri) => heard.push(uri));
    registry.resourceUpdated('notes://readme');
    stop();
    stopFailing();
    registry.resourceUpdated('notes://logo');
    expect(heard).toEqual(['notes://readme']);
  });

  it('lists what it was built with, in order', () => {
    expect(registry.resources().map((r) => r.featureClass)).toEqual(FEATURE_RESOURCES);
    expect(registry.prompts().map((p) => p.featureClass)).toEqual(FEATURE_PROMPTS);
    expect(registry.prompts()[0].arguments).toEqual([
      { name: 'topic', description: 'What to summarize', required: true },
      { name: 'style', description: 'How long', required: false, enum: ['short', 'long'] },
    ]);
  });
});

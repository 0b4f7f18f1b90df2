import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { buildCli, ROOT, type BuiltCli } from './build-cli';
import { runNode } from './run-cli';

describe('toolwright CLI (built, run as a subprocess)', () => {
  let cli: BuiltCli;
  const run = (...args: string[]) => runNode(cli.main, args);
  const withFixture = (...args: string[]) => run(...args, '--module', cli.fixture);

  beforeAll(() => {
    cli = buildCli();
  }, 180_000);

  describe('list', () => {
    it('prints each tool with its parameters and declared hints', async () => {
      const { code, stdout, stderr } = await withFixture('list');
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      expect(stdout).toContain('add [readOnly, idempotent]\n  Add two numbers.\n  - a: number  First addend\n  - b: number  Second addend');
      expect(stdout).toContain('note\n');
      expect(stdout).toContain('explode\n  Always fails (to show how unexpected errors are reported).\n  (no parameters)');
    });

    it('prints each provider format as JSON (--format json|openai|anthropic|gemini|mcp)', async () => {
      const name = (t: { name?: string; function?: { name: string } }) => t.name ?? t.function?.name;
      const expected = {
        json: { name: 'add', parameters: expect.objectContaining({ required: ['a', 'b'] }), outputSchema: expect.any(Object) },
        openai: { type: 'function', function: expect.objectContaining({ name: 'add', parameters: expect.any(Object) }) },
        anthropic: { name: 'add', input_schema: expect.objectContaining({ type: 'object', required: ['a', 'b'] }) },
        gemini: { name: 'add', parameters: expect.objectContaining({ type: 'object', required: ['a', 'b'] }) },
        mcp: { name: 'add', inputSchema: expect.objectContaining({ type: 'object' }), outputSchema: expect.any(Object) },
      };
      const runs = await Promise.all(Object.keys(expected).map((format) => withFixture('list', '--format', format)));
      Object.entries(expected).forEach(([format, shape], i) => {
        expect({ format, code: runs[i].code }).toEqual({ format, code: 0 });
        const tools = JSON.parse(runs[i].stdout) as { name?: string; function?: { name: string } }[];
        expect(tools.map(name)).toEqual(['add', 'note', 'explode']);
        expect(tools[0]).toMatchObject(shape);
      });
    });

    it('rejects an unknown format with the allowed choices (exit 2)', async () => {
      const { code, stderr } = await withFixture('list', '--format', 'yaml');
      expect(code).toBe(2);
      expect(stderr).toContain('Allowed choices are text, json, openai, anthropic, gemini, mcp');
    });
  });

  describe('resources and prompts', () => {
    const features = (...args: string[]) => run(...args, '--module', cli.featuresFixture);

    it("lists the caller's resources and prompts after the tools, behind the same gate", async () => {
      const alice = await features('list', '--user', 'alice');
      expect(alice.code).toBe(0);
      expect(alice.stdout).toContain('Resources:\nnotes://readme (readme)  How the notes work\n');
      expect(alice.stdout).toContain('notes://{owner}/{noteId} (note)  One note');
      expect(alice.stdout).toContain('Prompts:\nsummarize(topic, style?)  Summarize a topic');
      expect(alice.stdout).not.toContain('admin');
      expect((await features('list', '--user', 'root')).stdout).toContain('notes://admin (admin_notes)');
    });

    it('reads a resource and gets a prompt as JSON, logs on stderr', async () => {
      const read = await features('read', 'notes://bob/n7', '--user', 'alice');
      expect({ code: read.code, stderr: read.stderr }).toEqual({ code: 0, stderr: '[notes://bob/n7] info: read bob/n7\n' });
      expect(JSON.parse(JSON.parse(read.stdout).contents[0].text)).toEqual({ owner: 'bob', noteId: 'n7', reads: 1, user: 'alice' });
      const prompt = await features('prompt', 'summarize', '{"topic":"bugs"}');
      expect(prompt.code).toBe(0);
      expect(JSON.parse(prompt.stdout).messages[0]).toEqual({ role: 'user', content: { type: 'text', text: 'Summarize bugs (short).' } });
    });

    it('answers unknown, hidden and invalid requests with their codes and exit 2', async () => {
      const runs = await Promise.all([
        features('read', 'notes://nowhere'),
        features('read', 'notes://admin', '--user', 'alice'),
        features('read', 'notes://carol/n1'),
        features('prompt', 'admin_prompt', '--user', 'alice'),
        features('prompt', 'summarize', '{"topic":'),
        features('prompt', 'summarize', '{"topic":"x","__proto__":{"a":1}}'),
      ]);
      expect(runs.map((r) => r.code)).toEqual([2, 2, 2, 2, 2, 2]);
      expect(runs.map((r) => /RESOURCE_NOT_FOUND|PROMPT_NOT_FOUND|INVALID_ARGUMENTS|INVALID_JSON/.exec(r.stderr)?.[0])).toEqual([
        'RESOURCE_NOT_FOUND',
        'RESOURCE_NOT_FOUND',
        'INVALID_ARGUMENTS',
        'PROMPT_NOT_FOUND',
        'INVALID_JSON',
        expect.stringMatching(/INVALID_ARGUMENTS|INVALID_JSON/),
      ]);
    });
  });

  describe('call', () => {
    it('prints the result JSON and exits 0', async () => {
      const { code, stdout, stderr } = await withFixture('call', 'add', '{"a": 2, "b": 40}');
      expect({ code, stdout, stderr }).toEqual({ code: 0, stdout: '{"sum":42}\n', stderr: '' });
    });

    it('builds the context from --user, --tenant and --session', async () => {
      const { code, stdout } = await withFixture('call', 'note', '{"text":"hi"}', '--user', 'u-7', '--tenant', 't-3', '--session', 's-9');
      expect(code).toBe(0);
      expect(JSON.parse(stdout)).toEqual({ notes: ['hi'], sessionId: 's-9', userId: 'u-7', tenantId: 't-3', facts: 1 });
    });

    it('reports invalid arguments field by field (exit 2)', async () => {
      const { code, stdout, stderr } = await withFixture('call', 'add', '{"a":"two","b":1}');
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toMatch(/^toolwright: INVALID_ARGUMENTS: Invalid arguments for tool "add"/);
      expect(stderr).toContain('  - a: ');
      expect(stderr).toContain('[isNumber]');
    });

    it('reports bad JSON with how to quote it (exit 2)', async () => {
      const { code, stderr } = await withFixture('call', 'add', '{a: 1}');
      expect(code).toBe(2);
      expect(stderr).toContain('INVALID_JSON');
      expect(stderr).toContain(`Pass the arguments as one JSON object in single quotes`);
    });

    it('reports an unknown tool with the available ones (exit 2)', async () => {
      const { code, stderr } = await withFixture('call', 'refund');
      expect(code).toBe(2);
      expect(stderr).toBe('toolwright: TOOL_NOT_FOUND: Tool "refund" does not exist. Available tools: add, note, explode.\n');
    });

    it('reports a failing tool with its cause for the developer (exit 1)', async () => {
      const { code, stdout, stderr } = await withFixture('call', 'explode');
      expect(code).toBe(1);
      expect(stdout).toBe('');
      expect(stderr).toContain('toolwright: TOOL_FAILED: Tool "explode" failed: connection string');
      expect(stderr).toContain('at ExplodeTool.execute');
    });
  });

  describe('the tools module', () => {
    it('loads .ts modules through ts-node: the default ./toolwright.config.ts (a default-exported factory) and --module', async () => {
      const [listed, called] = await Promise.all([
        runNode(cli.main, ['list', '--format', 'json'], join(ROOT, 'tests/fixtures/project')),
        run('call', 'add', '{"a":1,"b":1}', '-m', 'tests/fixtures/toolwright.config.ts'),
      ]);
      expect(listed.stderr).toBe('');
      expect(JSON.parse(listed.stdout).map((t: { name: string }) => t.name)).toEqual(['add', 'note', 'explode']);
      expect(called).toEqual({ code: 0, stdout: '{"sum":2}\n', stderr: '' });
    });

    it('says which path is missing (exit 3)', async () => {
      const { code, stderr } = await run('list', '--module', 'tests/fixtures/nope.ts');
      expect(code).toBe(3);
      expect(stderr).toBe(
        `toolwright: Module not found: ${join(ROOT, 'tests/fixtures/nope.ts')}. Check the --module path (relative paths start at ${ROOT}).\n`,
      );
    });

    it('explains the default module when there is none (exit 3)', async () => {
      const empty = mkdtempSync(join(ROOT, '.toolwright', 'empty-'));
      try {
        const { code, stderr } = await runNode(cli.main, ['list'], empty);
        expect(code).toBe(3);
        expect(stderr).toContain('No tools module: found neither ./toolwright.config.ts nor ./toolwright.config.js');
        expect(stderr).toContain('pass --module <path>');
      } finally {
        rmSync(empty, { recursive: true, force: true });
      }
    });

    it('names the exports of a module without a registry (exit 3)', async () => {
      const { code, stderr } = await run('list', '--module', 'tests/fixtures/no-registry.js');
      expect(code).toBe(3);
      expect(stderr).toContain('tests/fixtures/no-registry.js does not export a ToolRegistry (exports: tools, version).');
      expect(stderr).toContain('export const registry = ToolRegistry.build');
    });

    it('reports a module that throws while loading (exit 3)', async () => {
      const { code, stderr } = await run('call', 'add', '{}', '--module', 'tests/fixtures/throws-on-load.js');
      expect(code).toBe(3);
      expect(stderr).toBe('toolwright: Loading tests/fixtures/throws-on-load.js failed: cannot reach the config service\n');
    });
  });

  it('prints help (exit 0) and rejects an unknown command (exit 2)', async () => {
    const help = await run('--help');
    expect(help.code).toBe(0);
    for (const command of ['list', 'call', 'mcp', 'new', 'studio']) expect(help.stdout).toContain(command);
    const unknown = await run('deploy');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'deploy'");
  });

  describe('studio', () => {
    let child: ChildProcess | undefined;

    afterEach(() => {
      if (child && child.exitCode === null) child.kill('SIGKILL');
    });

    /** Starts `toolwright studio` and resolves with the URL it prints. */
    function startStudio(args: string[], env: Record<string, string> = {}): Promise<string> {
      child = spawn(process.execPath, [cli.main, 'studio', ...args], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, ...env },
      });
      return new Promise<string>((resolve, reject) => {
        let out = '';
        child!.stdout!.setEncoding('utf8').on('data', (d: string) => {
          out += d;
          const match = /toolwright studio: (\S+)/.exec(out);
          if (match) resolve(match[1]);
        });
        let err = '';
        child!.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
        child!.once('exit', (code) => reject(new Error(`studio exited (${code}): ${out}${err}`)));
      });
    }

    it('prints a loopback URL with a token, serves the page and the API behind it, and stops cleanly on SIGTERM', async () => {
      const url = new URL(await startStudio(['--module', cli.fixture, '--user', 'ops', '--tenant', 't1']));
      expect(url.hostname).toBe('127.0.0.1');
      const token = url.searchParams.get('token')!;
      expect(token).toMatch(/^[\w-]{32}$/);
      const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
      expect((await fetch(url)).status).toBe(200);
      expect((await fetch(new URL('/api/info', url))).status).toBe(401);
      const info = await fetch(new URL('/api/info', url), { headers: { authorization: `Bearer ${token}` } });
      expect(await info.json()).toMatchObject({ tools: 3, agent: null, identity: { userId: 'ops', tenantId: 't1' } });
      child!.kill('SIGTERM');
      expect(await exited).toBe(0);
    });

    it("shows a module's exported agent (its chat) rather than the bare registry", async () => {
      const url = new URL(await startStudio(['--module', cli.studioAgentFixture]));
      const info = await fetch(new URL('/api/info', url), { headers: { authorization: `Bearer ${url.searchParams.get('token')}` } });
      expect(await info.json()).toMatchObject({ tools: 3, agent: { name: 'fixture-agent' } });
    });

    it('starts the support desk sample (`npm run studio`), whose chat answers as the chosen customer', async () => {
      const state = mkdtempSync(join(tmpdir(), 'tw-studio-sample-'));
      try {
        const url = new URL(
          await startStudio(['--module', 'samples/support-desk/studio.ts', '--user', 'alice', '--tenant', 'acme'], {
            TOOLWRIGHT_STATE_DIR: state,
          }),
        );
        const headers = {
          authorization: `Bearer ${url.searchParams.get('token')}`,
          'content-type': 'application/json',
          'x-studio-user': 'alice',
          'x-studio-tenant': 'acme',
        };
        const body = {
          id: 'cli-sample',
          messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'Where is my order A-100?' }] }],
        };
        const res = await fetch(new URL('/api/chat', url), { method: 'POST', headers, body: JSON.stringify(body) });
        expect(res.status).toBe(200);
        const stream = await res.text();
        expect(stream).toContain('"toolName":"order_lookup"');
        expect(stream).toContain('"type":"finish"');
        expect(existsSync(join(state, 'state.db'))).toBe(true);
      } finally {
        child?.kill('SIGKILL');
        rmSync(state, { recursive: true, force: true });
      }
    });

    it('refuses to listen off loopback', async () => {
      const result = await run('studio', '--module', cli.fixture, '--listen', '0.0.0.0:0');
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain('loopback only');
    });
  });

  describe('mcp --http', () => {
    let child: ChildProcess | undefined;

    afterEach(() => {
      if (child && child.exitCode === null) child.kill('SIGKILL');
    });

    it('serves over Streamable HTTP behind --token and stops cleanly on SIGTERM', async () => {
      child = spawn(
        process.execPath,
        [cli.main, 'mcp', '--http', '127.0.0.1:0', '--token', 's3cret', '--user', 'ops', '--module', cli.fixture],
        {
          cwd: ROOT,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
      const url = await new Promise<string>((resolve, reject) => {
        let stderr = '';
        child!.stderr!.setEncoding('utf8').on('data', (d: string) => {
          stderr += d;
          const match = /listening on (\S+) \(bearer token required\)/.exec(stderr);
          if (match) resolve(match[1]);
        });
        child!.once('exit', () => reject(new Error(`mcp exited early: ${stderr}`)));
      });

      const denied = new Client({ name: 'no-token', version: '1' });
      await expect(denied.connect(new StreamableHTTPClientTransport(new URL(url)))).rejects.toThrow(/401|Unauthorized/);

      const client = new Client({ name: 'with-token', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: 'Bearer s3cret' } } }),
      );
      const result = await client.callTool({ name: 'note', arguments: { text: 'over http' } });
      expect(JSON.parse((result.content as [{ text: string }])[0].text)).toMatchObject({ notes: ['over http'], userId: 'ops' });
      await client.close();

      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    });
  });
});

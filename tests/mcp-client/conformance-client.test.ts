/**
 * The official MCP conformance suite's client scenarios (@modelcontextprotocol/conformance, pinned)
 * against toolwright's client (tests/mcp-client/conformance-driver.ts: a registry whose tools come
 * from the scenario's server). The suite's CLI needs Node 22+: on an older Node it runs on
 * .ci/node24.sh's binary, while the driver runs on this Node. The auth scenarios run the
 * authorization code flow (`authorizationCode` with a headless redirect hook: the suite's
 * authorization server consents at once) or client credentials. Not run: the extension scenarios
 * `client-credentials-jwt` and `cross-app-access-complete-flow`.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const CLI = join(ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const DRIVER = `${process.execPath} -r ts-node/register/transpile-only ${join(__dirname, 'conformance-driver.ts')}`;

jest.setTimeout(120_000);

function suiteNode(): string {
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
  return execFileSync('bash', [join(ROOT, '.ci/node24.sh')], { encoding: 'utf8' }).trim();
}

let workDir: string;
beforeAll(() => (workDir = mkdtempSync(join(tmpdir(), 'mcp-client-conformance-'))));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

/** Runs one scenario and returns the checks the suite saved. */
function runScenario(scenario: string): Promise<Check[]> {
  const out = join(workDir, scenario.replace('/', '-'));
  return new Promise((resolve, reject) => {
    const child = spawn(suiteNode(), [CLI, 'client', '--command', DRIVER, '--scenario', scenario, '-o', out], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    child.stdout.on('data', (chunk: Buffer) => (log += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 100_000);
    child.once('error', reject);
    child.once('close', () => {
      clearTimeout(timer);
      try {
        const dir = readdirSync(out, { recursive: true, encoding: 'utf8' }).find((f) => f.endsWith('checks.json'));
        resolve(JSON.parse(readFileSync(join(out, dir!), 'utf8')) as Check[]);
      } catch (error) {
        reject(new Error(`no checks for ${scenario}: ${(error as Error).message}\n${log}`));
      }
    });
  });
}

const AUTH = [
  'metadata-default',
  'metadata-var1',
  'metadata-var2',
  'metadata-var3',
  'basic-cimd',
  'scope-from-www-authenticate',
  'scope-from-scopes-supported',
  'scope-omitted-when-undefined',
  'scope-step-up',
  'scope-retry-limit',
  'token-endpoint-auth-basic',
  'token-endpoint-auth-post',
  'token-endpoint-auth-none',
  'pre-registration',
  '2025-03-26-oauth-metadata-backcompat',
  '2025-03-26-oauth-endpoint-fallback',
  'resource-mismatch',
  'offline-access-scope',
  'offline-access-not-supported',
  'client-credentials-basic',
].map((name) => `auth/${name}`);

it.each(['initialize', 'tools_call', 'elicitation-sep1034-client-defaults', 'sse-retry', ...AUTH])(
  'client scenario %s passes',
  async (scenario) => {
    const checks = await runScenario(scenario);
    const failed = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
    expect(failed).toEqual([]);
    expect(checks.filter((c) => c.status === 'SUCCESS').length).toBeGreaterThan(0);
  },
);

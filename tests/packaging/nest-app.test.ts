/**
 * The packed tarball in a fresh NestJS 12 app, installed with a plain `npm install` (no --force, no
 * --legacy-peer-deps): the app's own TypeScript compiles against toolwright/nestjs's declarations
 * (strict, no skipLibCheck), and the app (ESM, as Nest 12 is) serves a tool provider over the MCP
 * and chat controllers behind its guard. Nest 12 needs Node 22 (file-type 22 under
 * @nestjs/common): on Node 20 the app installs and runs on Node 24 from .ci/node24.sh.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT, buildAndPack, tsc, tsconfig, type Packed } from './consumer-app';

const CACHE = join(ROOT, '.ci/cache/npm-matrix');
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

/** What `nest new` and the docs have a Nest app install, at exact versions. */
const DEPENDENCIES = {
  '@nestjs/common': '12.6.3',
  '@nestjs/core': '12.6.3',
  '@nestjs/platform-express': '12.6.3',
  '@modelcontextprotocol/sdk': '1.32.2',
  'reflect-metadata': '0.2.2',
  rxjs: '7.8.2',
  'class-validator': '0.15.1',
  'class-transformer': '0.5.1',
};

let packed: Packed;
let dir: string;
let node: string;
let install: { status: number | null; output: string };

beforeAll(() => {
  packed = buildAndPack();
  node = NODE_MAJOR >= 22 ? process.execPath : execFileSync('bash', [join(ROOT, '.ci/node24.sh')], { encoding: 'utf8' }).trim();
  dir = join(packed.work, 'nest-app');
  mkdirSync(dir, { recursive: true });
  const manifest = {
    name: 'nest-app',
    private: true,
    type: 'module',
    dependencies: { ...DEPENDENCIES, toolwright: `file:${packed.tarball}` },
    devDependencies: { '@types/node': '24.19.4' },
  };
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  writeFileSync(join(dir, 'tsconfig.json'), tsconfig({}, ['app.ts']));
  copyFileSync(join(__dirname, 'nest-app/app.ts'), join(dir, 'app.ts'));
  // A user's plain install: none of jest's or an outer npm's npm_* settings, the row's Node first on PATH.
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
  const result = spawnSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--cache', CACHE], {
    cwd: dir,
    env: { ...env, PATH: `${dirname(node)}:${env.PATH ?? ''}` },
    encoding: 'utf8',
    timeout: 540_000,
  });
  install = { status: result.status, output: `${result.stdout}${result.stderr}` };
}, 600_000);
afterAll(() => packed?.cleanup());

describe('toolwright in a fresh NestJS 12 app', () => {
  it('installs with a plain `npm install`: exit 0, no ERESOLVE, no engine or peer warning', () => {
    expect({ status: install.status, output: install.status === 0 ? '' : install.output }).toEqual({ status: 0, output: '' });
    expect(install.output).not.toMatch(/ERESOLVE|EBADENGINE|peer dep/i);
  });

  it("the app's TypeScript compiles against the declarations (strict, no skipLibCheck)", () => {
    expect(tsc(dir)).toBe('');
  });

  it('runs: the tool provider over MCP (valid, invalid) and chat as the guard user; 401 without a token', () => {
    const run = spawnSync(node, ['out/app.js'], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({
      registry: ['lookup_order'],
      tools: ['lookup_order'],
      valid: { order_id: 'A-1', status: 'shipped', user: 'alice' },
      invalid: 'INVALID_ARGUMENTS',
      anonymous: 401,
      chat: { status: 200, toolOutput: true, byBob: true },
    });
  });
});

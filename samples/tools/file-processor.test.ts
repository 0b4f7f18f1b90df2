import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ContainerInstance } from 'typedi';
import { AgentContext, ToolDefinitionError, ToolInputError, ToolRegistry } from 'toolwright';
import { createSupportApp, resolveTools } from './app';
import { FileProcessorTool } from './file-processor.tool';
import { MAX_UPLOAD_BYTES } from './upload-storage.service';

const context = new AgentContext({ sessionId: 's-1', userId: 'alice', state: { user_id: 'alice' } });
const b64 = (text: string | Buffer) => Buffer.from(text).toString('base64');

let work: string;
let sandbox: string;
let outside: string;

beforeEach(() => {
  work = mkdtempSync(path.join(tmpdir(), 'file-processor-'));
  sandbox = path.join(work, 'uploads');
  outside = path.join(work, 'outside');
  mkdirSync(sandbox);
  mkdirSync(outside);
});

afterEach(() => rmSync(work, { recursive: true, force: true }));

async function upload(args: object) {
  const { registry } = createSupportApp({ uploadDir: sandbox });
  return JSON.parse(await registry.call('file_processor', args, context));
}

describe('file_processor', () => {
  it('sends its hand-written definition as it is', () => {
    const { registry } = createSupportApp({ uploadDir: sandbox });
    expect(registry.get('file_processor').definition()).toEqual(new FileProcessorTool(undefined as never).definition());
    expect(registry.get('file_processor').definition().parameters.required).toEqual(['file_content', 'filename']);
  });

  it('writes the decoded file into the sandbox, folders included', async () => {
    expect(await upload({ file_content: b64('id,total\n1,9.5\n'), filename: 'report.csv' })).toEqual({
      status: 'success',
      path: 'report.csv',
      size: 15,
    });
    expect(readFileSync(path.join(sandbox, 'report.csv'), 'utf8')).toBe('id,total\n1,9.5\n');

    expect(await upload({ file_content: b64('%PDF'), filename: 'invoices/march.pdf' })).toMatchObject({
      status: 'success',
      path: 'invoices/march.pdf',
    });
    expect(readFileSync(path.join(sandbox, 'invoices', 'march.pdf'), 'utf8')).toBe('%PDF');
  });

  it.each([
    ['../outside/escape.txt'],
    ['notes/../../outside/escape.txt'],
    ['..'],
    ['/etc/passwd'],
    ['C:\\Windows\\evil.dll'],
    ['safe.txt\u0000.png'],
    ['.ssh/authorized_keys'],
    ['a//b.txt'],
  ])('refuses the file name %j and writes nothing', async (filename) => {
    const result = await upload({ file_content: b64('x'), filename });
    expect(result).toMatchObject({ status: 'error', error_code: 'UNSAFE_FILENAME' });
    expect(readdirSync(sandbox)).toEqual([]);
    expect(readdirSync(outside)).toEqual([]);
  });

  it('refuses to follow a symlinked folder out of the sandbox', async () => {
    symlinkSync(outside, path.join(sandbox, 'link'));
    expect(await upload({ file_content: b64('x'), filename: 'link/escape.txt' })).toMatchObject({
      status: 'error',
      error_code: 'UNSAFE_FILENAME',
    });
    expect(readdirSync(outside)).toEqual([]);
  });

  it('checks containment before creating any folder: a symlinked folder cannot get a new folder made outside', async () => {
    symlinkSync(outside, path.join(sandbox, 'link'));
    expect(await upload({ file_content: b64('x'), filename: 'link/new-folder/deeper/escape.txt' })).toMatchObject({
      status: 'error',
      error_code: 'UNSAFE_FILENAME',
    });
    expect(readdirSync(outside)).toEqual([]);
    // New folders inside the sandbox are still made as needed.
    expect(await upload({ file_content: b64('x'), filename: 'reports/2026/march.csv' })).toMatchObject({
      status: 'success',
      path: 'reports/2026/march.csv',
    });
  });

  it('never overwrites, so a planted symlink cannot redirect the write', async () => {
    const target = path.join(outside, 'victim.txt');
    writeFileSync(target, 'original');
    symlinkSync(target, path.join(sandbox, 'innocent.txt'));
    expect(await upload({ file_content: b64('pwned'), filename: 'innocent.txt' })).toMatchObject({
      status: 'error',
      error_code: 'FILE_EXISTS',
    });
    expect(readFileSync(target, 'utf8')).toBe('original');
  });

  it('accepts exactly 1 MiB and refuses one byte more', async () => {
    const limit = Buffer.alloc(MAX_UPLOAD_BYTES, 7);
    expect(await upload({ file_content: b64(limit), filename: 'max.bin' })).toMatchObject({ status: 'success', size: MAX_UPLOAD_BYTES });

    const over = Buffer.alloc(MAX_UPLOAD_BYTES + 1, 7);
    expect(await upload({ file_content: b64(over), filename: 'over.bin' })).toEqual({
      status: 'error',
      error_code: 'FILE_TOO_LARGE',
      message: `file must be at most ${MAX_UPLOAD_BYTES} bytes`,
    });
    expect(existsSync(path.join(sandbox, 'over.bin'))).toBe(false);
  });

  it('refuses content that is not base64 instead of decoding what it can', async () => {
    expect(await upload({ file_content: 'not base64!', filename: 'a.txt' })).toMatchObject({
      status: 'error',
      error_code: 'INVALID_BASE64',
    });
    expect(await upload({ file_content: 'abc', filename: 'a.txt' })).toMatchObject({ status: 'error', error_code: 'INVALID_BASE64' });
  });

  it('validates arguments against the hand-written schema', async () => {
    const { registry } = createSupportApp({ uploadDir: sandbox });
    const error = await registry.call('file_processor', { file_content: b64('x') }, context).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolInputError);
    expect((error as ToolInputError).errors).toMatchObject([{ path: 'filename', constraint: 'required' }]);

    const extra = await registry
      .call('file_processor', { file_content: b64('x'), filename: 'a.txt', mode: 'overwrite' }, context)
      .catch((e: unknown) => e);
    expect((extra as ToolInputError).errors).toMatchObject([{ path: 'mode', constraint: 'additionalProperties' }]);
  });

  it('cannot be built without a sandbox: the container must be given an UploadStorage', () => {
    const container = resolveTools(new ContainerInstance('no-uploads'));
    expect(() => ToolRegistry.build({ tools: [FileProcessorTool], container })).toThrow(ToolDefinitionError);
  });
});

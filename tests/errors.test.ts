import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  encodeToolError,
  InputUnavailableError,
  InvalidInputError,
  ModelError,
  StoreCorruptError,
  StoreUnavailableError,
  ToolAbortedError,
  ToolDefinitionError,
  ToolExecutionError,
  ToolInputError,
  ToolNotFoundError,
  ToolOutputError,
  ToolTimeoutError,
  ToolwrightConfigError,
  ToolwrightError,
  type ErrorCode,
} from 'toolwright';

const fieldError = { path: 'address.zip', message: 'address.zip must match /^\\d{5}$/ regular expression', constraint: 'matches' };

const errors: { error: ToolwrightError; cls: abstract new (...args: never[]) => ToolwrightError; code: ErrorCode }[] = [
  { error: new ToolwrightError('INTERNAL', 'custom failure'), cls: ToolwrightError, code: 'INTERNAL' },
  {
    error: new ToolwrightConfigError('historyLimit must be a non-negative integer, got -1'),
    cls: ToolwrightConfigError,
    code: 'INVALID_CONFIG',
  },
  {
    error: new ToolwrightConfigError('SqliteStore needs better-sqlite3', 'PEER_MISSING'),
    cls: ToolwrightConfigError,
    code: 'PEER_MISSING',
  },
  {
    error: new StoreCorruptError('sqlite', 'SQLite file /x.db is not a usable database', new Error('file is not a database')),
    cls: StoreCorruptError,
    code: 'STORE_CORRUPT',
  },
  { error: new ToolDefinitionError('RefundTool has no execute method.'), cls: ToolDefinitionError, code: 'INVALID_DEFINITION' },
  { error: new ToolNotFoundError('refnud', ['refund', 'lookup']), cls: ToolNotFoundError, code: 'TOOL_NOT_FOUND' },
  {
    error: new ToolInputError('INVALID_JSON', 'refund', [{ path: '', message: 'arguments are not valid JSON', constraint: 'isJson' }]),
    cls: ToolInputError,
    code: 'INVALID_JSON',
  },
  { error: new ToolInputError('INVALID_ARGUMENTS', 'refund', [fieldError]), cls: ToolInputError, code: 'INVALID_ARGUMENTS' },
  { error: new ToolExecutionError('refund', new Error('db password wrong')), cls: ToolExecutionError, code: 'TOOL_FAILED' },
  {
    error: new ToolOutputError('refund', [{ path: 'status', message: 'status must be equal to found', constraint: 'equals' }]),
    cls: ToolOutputError,
    code: 'INVALID_OUTPUT',
  },
  { error: new ToolTimeoutError('refund', 500), cls: ToolTimeoutError, code: 'TOOL_TIMEOUT' },
  { error: new ToolAbortedError('refund', new Error('run cancelled')), cls: ToolAbortedError, code: 'ABORTED' },
  { error: new StoreUnavailableError('redis', new Error('ECONNREFUSED')), cls: StoreUnavailableError, code: 'STORE_UNAVAILABLE' },
  { error: new ModelError('openai', 'rate limited', 429, true), cls: ModelError, code: 'MODEL_FAILED' },
  {
    error: new InputUnavailableError('form', 'the MCP client does not support elicitation'),
    cls: InputUnavailableError,
    code: 'INPUT_UNAVAILABLE',
  },
  { error: new InvalidInputError('Contact', [fieldError]), cls: InvalidInputError, code: 'INVALID_INPUT' },
];

describe.each(errors)('$error.name ($code)', ({ error, cls, code }) => {
  it('extends ToolwrightError and Error, with its code and class name', () => {
    expect(error).toBeInstanceOf(cls);
    expect(error).toBeInstanceOf(ToolwrightError);
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe(code);
    expect(error.name).toBe(cls.name);
  });

  it('gives the model compact JSON with its code and no stack', () => {
    const result = error.toToolResult();
    const parsed = JSON.parse(result) as Record<string, unknown>;
    expect(result).toBe(JSON.stringify(parsed)); // compact: no whitespace
    expect(parsed).toMatchObject({ status: 'error', code });
    expect(typeof parsed.message).toBe('string');
    expect(parsed).not.toHaveProperty('stack');
    expect(result).not.toMatch(/\bat .*\.ts:\d+/);
    expect(result).not.toContain('\n');
  });
});

describe('details', () => {
  it('ToolNotFoundError lists the available tools', () => {
    const error = new ToolNotFoundError('refnud', ['refund', 'lookup']);
    expect(error.toolName).toBe('refnud');
    expect(error.available).toEqual(['refund', 'lookup']);
    expect(error.message).toBe('Tool "refnud" does not exist. Available tools: refund, lookup.');
  });

  it('ToolNotFoundError caps the list at 20 names', () => {
    const names = Array.from({ length: 30 }, (_, i) => `tool_${i}`);
    const error = new ToolNotFoundError('x', names);
    expect(error.message).toContain('tool_19.');
    expect(error.message).not.toContain('tool_20');
  });

  it('ToolInputError carries its per-field errors to the model', () => {
    const error = new ToolInputError('INVALID_ARGUMENTS', 'refund', [fieldError]);
    expect(error.toolName).toBe('refund');
    expect(error.errors).toEqual([fieldError]);
    expect(error.message).toContain(fieldError.message);
    expect(JSON.parse(error.toToolResult())).toEqual({
      status: 'error',
      code: 'INVALID_ARGUMENTS',
      message: error.message,
      errors: [fieldError],
    });
  });

  it('ToolExecutionError keeps the cause but hides its message from the model by default', () => {
    const cause = new Error('db password wrong');
    const error = new ToolExecutionError('refund', cause);
    expect(error.cause).toBe(cause);
    expect(error.message).toContain('db password wrong');
    expect(JSON.parse(error.toToolResult())).toEqual({
      status: 'error',
      code: 'TOOL_FAILED',
      message: 'Tool "refund" failed unexpectedly.',
    });
  });

  it('ToolExecutionError shows the cause message when exposed', () => {
    const error = new ToolExecutionError('refund', new Error('Order already refunded'), true);
    expect(JSON.parse(error.toToolResult()).message).toBe('Order already refunded');
  });

  it('ToolExecutionError accepts a thrown non-Error', () => {
    const error = new ToolExecutionError('refund', 'plain string');
    expect(error.cause).toBe('plain string');
    expect(error.message).toBe('Tool "refund" failed: plain string');
    expect(JSON.parse(new ToolExecutionError('refund', 'plain string', true).toToolResult()).message).toBe(
      'Tool "refund" failed unexpectedly.',
    );
  });

  it('ToolOutputError hides the contract details from the model', () => {
    const error = new ToolOutputError('refund', [{ path: 'status', message: 'status must be equal to found', constraint: 'equals' }]);
    expect(error.message).toContain('status must be equal to found');
    expect(JSON.parse(error.toToolResult())).toEqual({
      status: 'error',
      code: 'INVALID_OUTPUT',
      message: 'Tool "refund" returned an invalid result.',
    });
  });

  it('ToolTimeoutError and ToolAbortedError name the tool', () => {
    expect(new ToolTimeoutError('refund', 500)).toMatchObject({
      toolName: 'refund',
      timeoutMs: 500,
      message: 'Tool "refund" did not finish within 500 ms.',
    });
    const reason = new Error('run cancelled');
    const aborted = new ToolAbortedError('refund', reason);
    expect(aborted).toMatchObject({ toolName: 'refund', message: 'Tool "refund" was cancelled: run cancelled.' });
    expect(aborted.cause).toBe(reason);
  });

  it('StoreUnavailableError and ModelError keep their context', () => {
    const cause = new Error('ECONNREFUSED');
    const store = new StoreUnavailableError('redis', cause);
    expect(store).toMatchObject({ store: 'redis', message: 'redis store is unavailable: ECONNREFUSED' });
    expect(store.cause).toBe(cause);
    const model = new ModelError('openai', 'rate limited', 429, true);
    expect(model).toMatchObject({
      provider: 'openai',
      status: 429,
      retryable: true,
      message: 'openai model failed (HTTP 429): rate limited',
    });
  });
});

describe('encodeToolError', () => {
  it('is the one shape every surface sends: status, code, message, and per-field errors only when given', () => {
    expect(JSON.parse(encodeToolError('DENIED', 'no'))).toEqual({ status: 'error', code: 'DENIED', message: 'no' });
    expect(JSON.parse(encodeToolError('INVALID_ARGUMENTS', 'bad', [fieldError]))).toEqual({
      status: 'error',
      code: 'INVALID_ARGUMENTS',
      message: 'bad',
      errors: [fieldError],
    });
    for (const { error } of errors)
      expect(error.toToolResult()).toBe(
        encodeToolError(error.code, JSON.parse(error.toToolResult()).message, JSON.parse(error.toToolResult()).errors),
      );
  });

  it('no source file outside errors.ts builds the error JSON by hand', () => {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (path.endsWith('.ts')) files.push(path);
      }
    };
    walk(join(__dirname, '../src'));
    expect(files.length).toBeGreaterThan(20);
    const handBuilt = files.filter(
      (file) => /status:\s*'error'/.test(readFileSync(file, 'utf8')) && !file.endsWith(join('errors', 'errors.ts')),
    );
    expect(handBuilt).toEqual([]);
  });
});

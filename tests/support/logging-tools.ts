/** The tools module the logging tests serve (MCP) and call (CLI), written at run time as a user's plain JS module. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Writes the module (`name`) into `dir`, on toolwright at `entry`: `log` logs its entries (`times` rounds;
 * `numbered` appends the round), `stash` keeps its context for `late`, which logs through it after
 * `stash`'s call ended, then logs once itself.
 */
export function writeLoggingTools(dir: string, entry: string, name = 'logging-tools.js'): string {
  const file = join(dir, name);
  writeFileSync(
    file,
    `'use strict';
const { ToolRegistry } = require(${JSON.stringify(entry)});

const entry = {
  type: 'object',
  properties: { level: { type: 'string' }, message: { type: 'string' }, data: {} },
  required: ['level', 'message'],
  additionalProperties: false,
};

class LogTool {
  definition() {
    return {
      name: 'log',
      description: 'Logs the given entries, times rounds over.',
      parameters: {
        type: 'object',
        properties: {
          entries: { type: 'array', items: entry },
          times: { type: 'integer', minimum: 1 },
          numbered: { type: 'boolean' },
        },
        required: ['entries'],
        additionalProperties: false,
      },
    };
  }
  execute({ entries, times = 1, numbered = false }, context) {
    for (let i = 0; i < times; i++) {
      for (const e of entries) {
        const message = numbered ? e.message + ' ' + i : e.message;
        if ('data' in e) context.log(e.level, message, e.data);
        else context.log(e.level, message);
      }
    }
    return JSON.stringify({ logged: entries.length * times });
  }
}

let stashed;
const none = { type: 'object', properties: {}, additionalProperties: false };

class StashTool {
  definition() {
    return { name: 'stash', description: 'Logs once and keeps its context.', parameters: none };
  }
  execute(_args, context) {
    context.log('info', 'stashing');
    stashed = context;
    return '{"stashed":true}';
  }
}

class LateTool {
  definition() {
    return { name: 'late', description: 'Logs through the stashed context, then through its own.', parameters: none };
  }
  execute(_args, context) {
    stashed.log('error', 'after the call ended');
    context.log('info', 'late ran');
    return '{"late":true}';
  }
}

exports.registry = ToolRegistry.build({ container: { get: (cls) => new cls() }, tools: [LogTool, StashTool, LateTool] });
`,
  );
  return file;
}

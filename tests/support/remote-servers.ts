import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from './servers';

/** The reference MCP servers installed from npm (devDependencies), run with this Node. */
export const SERVER = {
  everything: require.resolve('@modelcontextprotocol/server-everything/dist/index.js'),
  filesystem: require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js'),
  memory: require.resolve('@modelcontextprotocol/server-memory/dist/index.js'),
  hostile: join(__dirname, 'hostile-mcp-server.js'),
};

export interface HttpServer {
  url: string;
  stop(): Promise<void>;
}

/** server-everything over Streamable HTTP on a free port, resolved once it listens. */
export async function startEverythingHttp(): Promise<HttpServer> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [SERVER.everything, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let log = '';
    const timer = setTimeout(() => reject(new Error(`server-everything did not start: ${log}`)), 20_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      if (log.includes('listening on port')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`server-everything exited (${code}): ${log}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill();
      }),
  };
}

/**
 * Each jest project runs against one end of the peer ranges: `newest` (the devDependencies) and
 * `oldest` (the npm aliases mapped in jest.config.ts). If a mapping stopped applying, the oldest
 * rows would silently test the newest version again.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';

declare const PEER_END: 'newest' | 'oldest';

const pkg = JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8')) as { peerDependencies: Record<string, string> };

/** The "major" of a version as npm's caret reads it: the minor for 0.x. */
const line = (version: string) => (semver.major(version) === 0 ? `0.${semver.minor(version)}` : `${semver.major(version)}`);

describe(`peer range end: ${PEER_END}`, () => {
  it.each([
    ['openai'],
    ['@openai/agents-core'],
    ['@nestjs/common'],
    ['@nestjs/core'],
    ['@nestjs/platform-express'],
    ['@nestjs/platform-fastify'],
    ['@nestjs/testing'],
  ])('%s loads at the %s end of its peer range', (name) => {
    // Resolved the way the code under test resolves the package (jest's moduleNameMapper applies).
    const version = loadedVersion(name);
    const range = pkg.peerDependencies[name];
    const floor = semver.minVersion(range)!.version;
    expect(semver.satisfies(version, range)).toBe(true);
    if (PEER_END === 'oldest') expect(line(version)).toBe(line(floor));
    else expect(line(version)).not.toBe(line(floor));
  });
});

/** The version of the copy `require(name)` gives this project, read next to its entry file. */
function loadedVersion(name: string): string {
  // require.resolve goes through jest's moduleNameMapper, as the code under test does.
  const root = require.resolve(name).split('/node_modules/').slice(0, -1).join('/node_modules/');
  const folder = require
    .resolve(name)
    .slice(root.length + '/node_modules/'.length)
    .split('/');
  const dir = join(root, 'node_modules', ...folder.slice(0, folder[0].startsWith('@') ? 2 : 1));
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
}

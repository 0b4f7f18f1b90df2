import { constants } from 'node:fs';
import { mkdir, open, realpath } from 'node:fs/promises';
import * as path from 'node:path';

/** Largest file an agent may upload, decoded. */
export const MAX_UPLOAD_BYTES = 1024 * 1024;

/** Why a file was refused; the tool passes `code` on to the model as `error_code`. */
export class UploadRejected extends Error {
  override readonly name = 'UploadRejected';
  constructor(
    readonly code: 'UNSAFE_FILENAME' | 'INVALID_BASE64' | 'FILE_TOO_LARGE' | 'FILE_EXISTS',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Writes agent uploads into one sandbox directory and nowhere else. Not a typedi `@Service`:
 * it needs its directory, so the app registers an instance
 * (`container.set(UploadStorage, new UploadStorage('/var/app/uploads'))`).
 */
export class UploadStorage {
  constructor(readonly root: string) {}

  /** Stores base64 content under `filename` (relative, inside the sandbox); never overwrites. */
  async save(filename: string, base64: string): Promise<{ path: string; size: number }> {
    const relative = checkFilename(filename);
    const bytes = decodeBase64(base64, MAX_UPLOAD_BYTES);

    await mkdir(this.root, { recursive: true });
    const root = await realpath(this.root);
    const target = path.join(await walkInside(root, relative.split('/').slice(0, -1)), path.basename(relative));
    // O_EXCL: refuses an existing file, and so also a planted symlink at the final component.
    const file = await open(target, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'EEXIST') throw new UploadRejected('FILE_EXISTS', `${relative} already exists`);
      throw error;
    });
    try {
      await file.writeFile(bytes);
    } finally {
      await file.close();
    }
    return { path: relative, size: bytes.length };
  }
}

/**
 * Walks the folders one at a time, each checked to resolve inside the sandbox before anything is
 * created in it: a symlinked folder that leads out is refused before any filesystem change.
 */
async function walkInside(root: string, segments: readonly string[]): Promise<string> {
  const outside = () => new UploadRejected('UNSAFE_FILENAME', 'filename must stay inside the upload directory');
  let dir = root;
  for (const segment of segments) {
    const next = path.join(dir, segment);
    let real = await realpath(next).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (real === undefined) {
      // `dir` is a real folder inside the sandbox, so creating one entry in it stays inside.
      await mkdir(next).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      });
      real = await realpath(next).catch(() => {
        throw outside(); // e.g. a dangling symlink planted at this name
      });
    }
    if (!isInside(root, real)) throw outside();
    dir = real;
  }
  return dir;
}

/** A relative path of plain segments: no `..`, no absolute or drive paths, no NUL or control characters. */
export function checkFilename(filename: string): string {
  const reject = (why: string) => new UploadRejected('UNSAFE_FILENAME', `filename ${why}`);
  if (filename.length === 0 || filename.length > 255) throw reject('must be 1 to 255 characters');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(filename)) throw reject('must not contain NUL or control characters');
  if (filename.includes('\\')) throw reject('must use "/" between folders');
  if (path.posix.isAbsolute(filename) || /^[a-zA-Z]:/.test(filename)) throw reject('must be relative, not absolute');
  for (const segment of filename.split('/')) {
    if (segment === '' || segment === '.' || segment === '..') throw reject('must not contain empty, "." or ".." segments');
    if (segment.startsWith('.')) throw reject('must not name hidden files or folders');
  }
  return filename;
}

/** Strict base64 (Buffer.from alone skips bad characters silently), refused before decoding when too big. */
export function decodeBase64(content: string, maxBytes: number): Buffer {
  if (content.length > Math.ceil(maxBytes / 3) * 4) throw tooLarge(maxBytes);
  if (content.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(content)) {
    throw new UploadRejected('INVALID_BASE64', 'file_content must be standard base64');
  }
  const bytes = Buffer.from(content, 'base64');
  if (bytes.length > maxBytes) throw tooLarge(maxBytes);
  return bytes;
}

function tooLarge(maxBytes: number): UploadRejected {
  return new UploadRejected('FILE_TOO_LARGE', `file must be at most ${maxBytes} bytes`);
}

function isInside(root: string, dir: string): boolean {
  return dir === root || dir.startsWith(root + path.sep);
}

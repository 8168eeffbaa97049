/**
 * File-system errors in words a user acts on ("is a directory", "permission denied"), for the one
 * line the CLI prints about a path it could not use. Node's own messages ("EISDIR: illegal
 * operation on a directory, read") name the system call, and for a read not even the path.
 */
const WORDS: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EISDIR: 'is a directory',
  ENOTDIR: 'a part of the path is not a directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  EEXIST: 'already exists',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'file name too long',
  EBUSY: 'busy',
};

/** A file-system error of a kind the user can fix (a wrong path, a mode, a full disk), not a bug. */
export function isFsError(error: unknown): error is NodeJS.ErrnoException & { code: string } {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string' && (error as NodeJS.ErrnoException).code! in WORDS;
}

/** What went wrong, in words; Node's message for a code not listed above. */
export function fsErrorText(error: unknown): string {
  if (isFsError(error)) return WORDS[error.code]!;
  return error instanceof Error ? error.message : String(error);
}

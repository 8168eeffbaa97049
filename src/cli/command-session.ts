import type { Command } from 'commander';
import { createIo } from './io.js';
import { parsedCommand } from './parsed-command.js';
import { ioFlags, programOptions } from './program-options.js';
import { createSession, type Session, type SessionOptions } from './session.js';

/** The session of a command that reads its flags from its Command (not yet split into parse and run). */
export function commandSession(command: Command, options: SessionOptions = {}): Session {
  const { program } = parsedCommand([], command);
  return createSession(programOptions(program), createIo(ioFlags(program)), options);
}

/**
 * Where a command writes and which directory it works in: the process's streams for the
 * `sluice` bin, buffers in tests. Its own module so that the commands and `main`, which
 * dispatches to them, import it without importing each other.
 */
export interface Io {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  cwd: string;
}

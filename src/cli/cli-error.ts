/** A user error the CLI reports in one line, exit code 2. */
export class CliError extends Error {
  readonly code = 'CLI_ERROR';
  constructor(message: string) {
    super(message);
    this.name = 'CliError';
  }
}

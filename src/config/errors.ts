/** The config file is not JSON or holds the wrong types: the user has to fix or remove it. */
export class ConfigError extends Error {
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

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

/** A token is in the OS keyring and the keyring does not answer (locked, or no Secret Service here). */
export class KeyringError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

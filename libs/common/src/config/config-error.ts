/** A configuration value that cannot be used; start-up stops with this message, which names the key. */
export class ConfigError extends Error {
  constructor(key: string, problem: string) {
    super(`Invalid configuration ${key}: ${problem}`);
    this.name = 'ConfigError';
  }
}

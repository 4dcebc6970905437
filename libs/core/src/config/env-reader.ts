/** The environment a configuration is read from (`process.env`, or a test's own). */
export type Env = Record<string, string | undefined>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Reads variables of the environment for the section readers, and collects every problem
 * instead of failing at the first, so one boot shows all that is wrong.
 */
export class EnvReader {
  readonly problems: string[] = [];

  constructor(private readonly env: Env) {}

  string(name: string, fallback: string): string {
    return this.optional(name) ?? fallback;
  }

  optional(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  }

  int(name: string, fallback: number, min: number, max: number): number {
    const raw = this.optional(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!/^-?\d+$/.test(raw) || value < min || value > max) {
      this.problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  }

  bool(name: string, fallback: boolean): boolean {
    const raw = this.optional(name)?.toLowerCase();
    if (raw === undefined) return fallback;
    if (['true', '1', 'yes'].includes(raw)) return true;
    if (['false', '0', 'no'].includes(raw)) return false;
    this.problems.push(`${name} must be true or false (got "${raw}")`);
    return fallback;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const raw = this.optional(name);
    if (raw === undefined) return fallback;
    if ((allowed as readonly string[]).includes(raw)) return raw as T;
    this.problems.push(`${name} must be one of ${allowed.join(', ')} (got "${raw}")`);
    return fallback;
  }

  url(name: string, fallback: string | undefined, protocols: string[]): string | undefined {
    const raw = this.optional(name) ?? fallback;
    if (raw === undefined) return undefined;
    return this.checkedUrl(name, raw, protocols);
  }

  /** A comma-separated list of URLs, each checked as {@link url} checks one; unset: none. */
  urlList(name: string, protocols: string[]): string[] {
    return this.list(name, []).map((raw) => this.checkedUrl(name, raw, protocols));
  }

  /** A URL that has a default, hence always a value. */
  urlOr(name: string, fallback: string, protocols: string[]): string {
    return this.url(name, fallback, protocols) ?? fallback;
  }

  list(name: string, fallback: string[]): string[] {
    const raw = this.optional(name);
    if (raw === undefined) return fallback;
    const values = raw
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean);
    if (values.length === 0) this.problems.push(`${name} must list at least one value`);
    return values;
  }

  private checkedUrl(name: string, raw: string, protocols: string[]): string {
    try {
      const parsed = new URL(raw);
      if (!protocols.includes(parsed.protocol)) {
        this.problems.push(`${name} must use ${protocols.join(' or ')} (got "${raw}")`);
      }
    } catch {
      this.problems.push(`${name} must be a URL (got "${raw}")`);
    }
    return raw.replace(/\/+$/, '');
  }
}

/** A section reader's result and the problems it found, for the readers' specs. */
export function readSection<T>(
  env: Env,
  reader: (read: EnvReader) => T,
): { value: T; problems: string[] } {
  const read = new EnvReader(env);
  return { value: reader(read), problems: read.problems };
}

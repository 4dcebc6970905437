import { readSection } from '../env-reader';
import { readServerConfig } from './server-config';

const serverOf = (env: Record<string, string>) => readSection(env, readServerConfig);

describe('readServerConfig', () => {
  it('hands out links to its own port when PUBLIC_BASE_URL is unset', () => {
    expect(serverOf({}).value.publicBaseUrl).toBe('http://localhost:3000');
    expect(serverOf({ PORT: '3900' }).value.publicBaseUrl).toBe('http://localhost:3900');
    expect(
      serverOf({ PORT: '3900', PUBLIC_BASE_URL: 'https://wallet.example.com' }).value.publicBaseUrl,
    ).toBe('https://wallet.example.com');
  });

  it('strips a trailing slash from base URLs', () => {
    expect(serverOf({ PUBLIC_BASE_URL: 'https://wallet.example.com/' }).value.publicBaseUrl).toBe(
      'https://wallet.example.com',
    );
  });

  it('allows no cross-origin callers unless CORS_ORIGINS lists them', () => {
    expect(serverOf({}).value.corsOrigins).toEqual([]);
    expect(
      serverOf({ CORS_ORIGINS: 'https://app.example.com, http://localhost:5173' }).value
        .corsOrigins,
    ).toEqual(['https://app.example.com', 'http://localhost:5173']);
    expect(serverOf({ CORS_ORIGINS: '*' }).value.corsOrigins).toBe('*');
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT must be an integer'],
    [{ PORT: '70000' }, 'PORT must be an integer from 0 to 65535'],
    [{ PUBLIC_BASE_URL: 'not a url' }, 'PUBLIC_BASE_URL must be a URL'],
    [{ CORS_ORIGINS: 'https://app.example.com/' }, 'CORS_ORIGINS entries must be origins'],
    [{ CORS_ORIGINS: 'https://app.example.com/path' }, 'CORS_ORIGINS entries must be origins'],
    [{ CORS_ORIGINS: '*.example.com' }, 'CORS_ORIGINS entries must be origins'],
    [{ CORS_ORIGINS: 'ftp://files.example.com' }, 'CORS_ORIGINS entries must be origins'],
    [{ CORS_ORIGINS: '*,https://app.example.com' }, 'CORS_ORIGINS: "*" must stand alone'],
  ])('refuses %p naming the variable', (env, message) => {
    expect(serverOf(env).problems).toEqual([expect.stringContaining(message)]);
  });
});

import type { Server } from 'node:http';
import request from 'supertest';
import { bearer, login, OWNER_EMAIL, OWNER_PASSWORD } from './test-app';

export interface Member {
  id: string;
  email: string;
  password: string;
  token: string;
}

/**
 * The bootstrap owner of a test app, signed in, with helpers that set up the other people
 * and things a test needs through the public API, as a real user would.
 */
export class OwnerSession {
  private counter = 0;

  private constructor(
    readonly server: Server,
    readonly token: string,
    readonly defaultWorkspaceId: string,
  ) {}

  static async start(server: Server): Promise<OwnerSession> {
    const token = await login(server, OWNER_EMAIL, OWNER_PASSWORD);
    const me = await request(server).get('/v1/me').set(bearer(token)).expect(200);
    const workspaces = (me.body as { workspaces: { id: string }[] }).workspaces;
    return new OwnerSession(server, token, workspaces[0].id);
  }

  get auth() {
    return bearer(this.token);
  }

  async createWorkspace(name = `Workspace ${++this.counter}`): Promise<string> {
    const response = await request(this.server)
      .post('/v1/workspaces')
      .set(this.auth)
      .send({ name })
      .expect(201);
    return (response.body as { id: string }).id;
  }

  async addMember(role: string, workspaceIds: string[]): Promise<Member> {
    const email = `member${++this.counter}-${Date.now()}@test.example`;
    const password = `password-${this.counter}-long`;
    const response = await request(this.server)
      .post('/v1/organisation/members')
      .set(this.auth)
      .send({ email, password, role, workspaceIds })
      .expect(201);
    const token = await login(this.server, email, password);
    return { id: (response.body as { id: string }).id, email, password, token };
  }

  /** Uploads a file as multipart and returns its uploadKey. */
  async upload(
    content: Buffer,
    fileName: string,
    options: { bucket?: string; workspaceId?: string } = {},
  ): Promise<string> {
    let call = request(this.server).post('/v1/uploads/storage').set(this.auth);
    if (options.workspaceId !== undefined) call = call.set('x-workspace-id', options.workspaceId);
    if (options.bucket !== undefined) call = call.field('bucket', options.bucket);
    const response = await call.attach('file', content, fileName).expect(201);
    return (response.body as { uploadKey: string }).uploadKey;
  }

  async createApiKey(token = this.token, name = 'test key'): Promise<{ id: string; key: string }> {
    const response = await request(this.server)
      .post('/v1/api-keys')
      .set(bearer(token))
      .send({ name })
      .expect(201);
    return response.body as { id: string; key: string };
  }
}

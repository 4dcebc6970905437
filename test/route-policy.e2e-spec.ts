import { AUTH_POLICY, type AuthPolicy } from '@app/core';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { MetadataScanner, ModulesContainer } from '@nestjs/core';
import request from 'supertest';
import { startTestApp, type TestApp } from './support/test-app';

interface Route {
  name: string;
  method: string;
  path: string;
  policy: AuthPolicy | undefined;
}

/** Every route of the running app, with the auth policy its handler or controller declares. */
function discoverRoutes(testApp: TestApp): Route[] {
  const modules = testApp.app.get(ModulesContainer);
  const scanner = new MetadataScanner();
  const routes: Route[] = [];
  const controllers = [...modules.values()].flatMap((module) => [...module.controllers.values()]);
  for (const wrapper of controllers) {
    const controller = wrapper.metatype as (new (...args: never[]) => unknown) | null;
    if (!controller || !wrapper.instance) continue;
    const prototype = Object.getPrototypeOf(wrapper.instance) as Record<string, unknown>;
    const controllerPath = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
    for (const methodName of scanner.getAllMethodNames(prototype)) {
      const handler = prototype[methodName] as object;
      const handlerPath = Reflect.getMetadata(PATH_METADATA, handler) as string | undefined;
      if (handlerPath === undefined) continue;
      const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
      const policy = (Reflect.getMetadata(AUTH_POLICY, handler) ??
        Reflect.getMetadata(AUTH_POLICY, controller)) as AuthPolicy | undefined;
      const path = `/${controllerPath}/${handlerPath}`.replace(/\/+/g, '/').replace(/\/$/, '');
      routes.push({ name: `${controller.name}.${methodName}`, method, path, policy });
    }
  }
  return routes;
}

const UNVERSIONED = /^\/(health|metrics|passkit|callbacks|p|l|files)(\/|$)/;

describe('Every route declares its auth policy', () => {
  let testApp: TestApp;
  let routes: Route[];

  beforeAll(async () => {
    testApp = await startTestApp();
    routes = discoverRoutes(testApp);
  });
  afterAll(() => testApp.close());

  it('finds the routes', () => {
    expect(routes.length).toBeGreaterThan(10);
  });

  it('has @Public() or @Authenticated() on every route', () => {
    const undeclared = routes
      .filter((route) => route.policy === undefined)
      .map((route) => route.name);
    expect(undeclared).toEqual([]);
  });

  it('answers 401 UNAUTHORIZED on every authenticated route when no credentials are sent', async () => {
    const authenticated = routes.filter((route) => route.policy?.kind === 'authenticated');
    expect(authenticated.length).toBeGreaterThan(5);
    for (const route of authenticated) {
      const concrete = route.path
        .replace(/:[A-Za-z]+/g, '0193a5e0-7b7a-7c1e-9d51-3f0b6c1e2a4b')
        .replace(/\{?\*[A-Za-z]+\}?/g, 'x');
      const url = UNVERSIONED.test(concrete) ? concrete : `/v1${concrete}`;
      const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
      const response = await request(testApp.server)[method](url).send({});
      expect({ route: route.name, status: response.status, code: response.body.errorCode }).toEqual(
        {
          route: route.name,
          status: 401,
          code: 'UNAUTHORIZED',
        },
      );
    }
  });
});

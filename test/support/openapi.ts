import type { Server } from 'node:http';
import request from 'supertest';

/** The parts of an OpenAPI 3 schema object the robustness suites read. */
export interface SchemaObject {
  $ref?: string;
  type?: string;
  format?: string;
  enum?: unknown[];
  pattern?: string;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  nullable?: boolean;
  items?: SchemaObject;
  properties?: Record<string, SchemaObject>;
  required?: string[];
  allOf?: SchemaObject[];
}

export interface ParameterObject {
  name: string;
  in: 'query' | 'path' | 'header' | 'cookie';
  required?: boolean;
  schema?: SchemaObject;
}

interface OperationObject {
  parameters?: ParameterObject[];
  requestBody?: { content: Record<string, { schema: SchemaObject }> };
  security?: Record<string, string[]>[];
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, OperationObject>>;
  components: { schemas: Record<string, SchemaObject> };
}

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** One documented operation: method + path template, its parameters and body schema. */
export interface Operation {
  method: HttpMethod;
  path: string;
  authenticated: boolean;
  pathParams: string[];
  query: ParameterObject[];
  body?: SchemaObject;
  contentTypes: string[];
}

export async function loadOpenApi(server: Server): Promise<OpenApiDocument> {
  const response = await request(server).get('/docs-json').expect(200);
  return response.body as OpenApiDocument;
}

const METHODS: readonly HttpMethod[] = ['get', 'post', 'put', 'patch', 'delete'];

export function listOperations(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation === undefined) continue;
      const parameters = operation.parameters ?? [];
      const content = operation.requestBody?.content ?? {};
      operations.push({
        method,
        path,
        authenticated: (operation.security ?? []).length > 0,
        pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name),
        query: parameters.filter((p) => p.in === 'query'),
        body: Object.values(content)[0]?.schema,
        contentTypes: Object.keys(content),
      });
    }
  }
  return operations;
}

/** Follows `$ref` and single-entry `allOf` wrappers to the schema they name. */
export function resolveSchema(document: OpenApiDocument, schema: SchemaObject): SchemaObject {
  let current = schema;
  for (let depth = 0; depth < 10; depth += 1) {
    if (current.$ref !== undefined) {
      const name = current.$ref.replace('#/components/schemas/', '');
      current = { ...document.components.schemas[name], nullable: current.nullable };
    } else if (current.allOf?.length === 1) {
      current = { ...current.allOf[0], nullable: current.nullable };
    } else {
      return current;
    }
  }
  return current;
}

/** `/v1/wallet-pass/{id}` with `{id: 'x'}` → `/v1/wallet-pass/x` (values URL-encoded). */
export function fillPath(path: string, values: (name: string) => string): string {
  return path.replace(/\{([A-Za-z]+)\}/g, (_, name: string) => encodeURIComponent(values(name)));
}

export const ERROR_CODES = [
  'INVALID_INPUT',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
  'UNAVAILABLE',
] as const;

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const ERROR_KEYS = new Set(['txId', 'timestamp', 'errorCode', 'errorMessage', 'context']);

/**
 * What is wrong with an error answer's body (the spec's Error body exactly),
 * or undefined when nothing is.
 */
export function errorBodyProblem(
  body: unknown,
  requestIdHeader: string | string[] | undefined,
): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'not an object';
  const record = body as Record<string, unknown>;
  const extra = Object.keys(record).filter((key) => !ERROR_KEYS.has(key));
  if (extra.length > 0) return `unexpected keys ${extra.join(', ')}`;
  if (typeof record.txId !== 'string' || record.txId === '') return 'txId is not a string';
  if (record.txId !== requestIdHeader) return 'txId differs from x-request-id';
  if (typeof record.timestamp !== 'string' || !ISO_8601.test(record.timestamp)) {
    return 'timestamp is not ISO 8601';
  }
  if (!(ERROR_CODES as readonly unknown[]).includes(record.errorCode)) return 'unknown errorCode';
  if (record.errorMessage !== undefined && typeof record.errorMessage !== 'string') {
    return 'errorMessage is not a string';
  }
  if (
    record.context !== undefined &&
    (typeof record.context !== 'object' || record.context === null || Array.isArray(record.context))
  ) {
    return 'context is not an object';
  }
  return undefined;
}

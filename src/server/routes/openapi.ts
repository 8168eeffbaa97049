import { STATUS_CODES } from 'node:http';
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import { BEARER_SCHEME } from '../auth/guard.js';
import { VERSION } from '../../version.js';

/**
 * `GET /v1/openapi.json`, generated from the very schemas the routes validate and serialize with:
 * every route is recorded as it is added, and the document is built on first request (after the
 * guarded scope has added its security requirement and 401/429 answers to its routes).
 */

type JsonSchema = Record<string, unknown> & { properties?: Record<string, unknown>; required?: string[] };

interface RouteSchema {
  summary?: string;
  security?: unknown;
  params?: JsonSchema;
  querystring?: JsonSchema;
  headers?: JsonSchema;
  body?: JsonSchema;
  response?: Record<string, JsonSchema>;
  /**
   * Media types beyond the API's own, for the one route that speaks OAuth (a device's poll): the
   * bodies it reads (JSON unless said) and, by status, those it answers (problem+json for errors unless said).
   */
  mediaTypes?: { body?: string[]; response?: Record<string, string[]> };
  /** The body may be left out (a device's login asks nothing in particular). */
  bodyOptional?: boolean;
}

export function recordRoutes(app: FastifyInstance): RouteOptions[] {
  const routes: RouteOptions[] = [];
  app.addHook('onRoute', (route) => {
    // The dashboard's pages and forms are not part of the API.
    if (route.url.startsWith('/v1/') || route.url === '/healthz') routes.push(route);
  });
  return routes;
}

function parameters(location: 'path' | 'query' | 'header', schema: JsonSchema | undefined) {
  return Object.entries(schema?.properties ?? {}).map(([name, property]) => ({
    name,
    in: location,
    required: location === 'path' || (schema?.required ?? []).includes(name),
    schema: property,
  }));
}

const content = (types: string[], schema: JsonSchema) => Object.fromEntries(types.map((type) => [type, { schema }]));

function responses(schemas: Record<string, JsonSchema>, mediaTypes: Record<string, string[]> = {}) {
  return Object.fromEntries(
    Object.entries(schemas).map(([status, schema]) => {
      const description = STATUS_CODES[Number(status)] ?? status;
      if (status === '204') return [status, { description }];
      const types = mediaTypes[status] ?? [Number(status) >= 400 ? 'application/problem+json' : 'application/json'];
      return [status, { description, content: content(types, schema) }];
    }),
  );
}

function operation(schema: RouteSchema) {
  return {
    summary: schema.summary,
    ...(schema.security === undefined ? {} : { security: schema.security }),
    parameters: [...parameters('path', schema.params), ...parameters('query', schema.querystring), ...parameters('header', schema.headers)],
    ...(schema.body === undefined
      ? {}
      : { requestBody: { required: schema.bodyOptional !== true, content: content(schema.mediaTypes?.body ?? ['application/json'], schema.body) } }),
    responses: responses(schema.response ?? {}, schema.mediaTypes?.response),
  };
}

function openApiDocument(routes: RouteOptions[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.url.replace(/:(\w+)/g, '{$1}');
    for (const method of [route.method].flat()) {
      if (method === 'HEAD') continue;
      (paths[path] ??= {})[method.toLowerCase()] = operation((route.schema ?? {}) as RouteSchema);
    }
  }
  return {
    openapi: '3.1.0',
    info: { title: 'mailverify', version: VERSION, description: 'Email deliverability verification.' },
    components: {
      securitySchemes: {
        [BEARER_SCHEME]: {
          type: 'http',
          scheme: 'bearer',
          description: 'A JWT from POST /v1/auth/login (every scope) or an `mv_` API token, limited to its scopes: each operation lists the one it needs.',
        },
      },
    },
    paths,
  };
}

export function openApiRoutes(app: FastifyInstance, routes: RouteOptions[]): void {
  let document: ReturnType<typeof openApiDocument> | undefined;
  const schema = { summary: 'This document: every route, from the schemas the routes validate with' } as FastifySchema;
  app.get('/v1/openapi.json', { schema }, async () => (document ??= openApiDocument(routes)));
}

import { VERSION } from '../version.js';
import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { API_PREFIX, type Config } from '../config/config.js';
import { ProblemSchema } from '../schemas/common.js';
import { FormSchema } from '../schemas/form.js';
import { TemplateSchema } from '../schemas/template.js';
import { SubmissionSchema } from '../schemas/submission.js';
import { TokenSchema } from '../schemas/token.js';
import { WorkspaceSchema } from '../schemas/workspace.js';

/** Shared schemas, referenced by `$ref` from routes and listed under `components.schemas`. */
export function addSharedSchemas(app: FastifyInstance): void {
  for (const schema of [ProblemSchema, TokenSchema, WorkspaceSchema, FormSchema, SubmissionSchema, TemplateSchema]) app.addSchema(schema);
}

/** The OpenAPI 3.1 document, built from the route schemas; served at `{base_url}/openapi.json`. */
export async function registerOpenApi(app: FastifyInstance, config: Config): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Formgate management API',
        version: VERSION,
        description:
          'Manage workspaces, forms, email templates and submissions. Every request carries `Authorization: Bearer <token>`; each operation names the scope it needs. Errors are RFC 9457 problems. ' +
          'Query parameters an operation does not declare are ignored; body fields it does not declare are refused, except a resource’s read-only fields sent back (see each operation).',
      },
      servers: [{ url: config.baseUrl }],
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'A token made with `formgate tokens create`.' } } },
    },
    hideUntagged: true,
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    transform: ({ schema, url }) => ({ schema, url: url.startsWith(API_PREFIX) ? url.slice(API_PREFIX.length) : url }),
  });
  // servers are filled in per request: with port 0 the address is known only after listen()
  app.get(`${API_PREFIX}/openapi.json`, { config: { rateLimit: false } }, async () => ({ ...app.swagger(), servers: [{ url: config.baseUrl }] }));
}

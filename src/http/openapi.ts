import { VERSION } from '../version.js';
import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { API_PREFIX, type Config } from '../config/config.js';
import { ProblemSchema } from '../schemas/common.js';
import { FormSchema } from '../schemas/form.js';
import { TemplateSchema } from '../schemas/template.js';
import { SubmissionSchema } from '../schemas/submission.js';
import { ReturnedSubmissionSchema, SpamSubmissionSchema } from '../schemas/spam-folder.js';
import { TriagedSubmissionSchema, TriageSchema } from '../schemas/triage.js';
import { TokenSchema } from '../schemas/token.js';
import { HookSchema } from '../schemas/hook.js';
import { AuditEventSchema } from '../schemas/audit-event.js';
import { WorkspaceSchema } from '../schemas/workspace.js';

/** The mark of an operation whose request body may be left out (`requestBody.required: false`). */
export const OPTIONAL_BODY = 'x-optional-body';

type Operation = { [key: string]: unknown; requestBody?: { required?: boolean } };
type Document = { [key: string]: unknown; paths: Record<string, Record<string, Operation>> };

/** The document as built from the routes, finished where @fastify/swagger cannot say it. */
function finish(document: Document): Document {
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item)) {
      if (!operation[OPTIONAL_BODY]) continue;
      delete operation[OPTIONAL_BODY];
      // NOTE: @fastify/swagger marks every body required
      if (operation.requestBody) operation.requestBody.required = false;
    }
  }
  return document;
}

/** Shared schemas, referenced by `$ref` from routes and listed under `components.schemas`. */
export function addSharedSchemas(app: FastifyInstance): void {
  const schemas = [
    ProblemSchema,
    TokenSchema,
    WorkspaceSchema,
    FormSchema,
    SubmissionSchema,
    SpamSubmissionSchema,
    ReturnedSubmissionSchema,
    TriageSchema,
    TriagedSubmissionSchema,
    TemplateSchema,
    HookSchema,
    AuditEventSchema,
  ];
  for (const schema of schemas) app.addSchema(schema);
}

/** The OpenAPI 3.1 document, built from the route schemas; served at `{base_url}/openapi.json`. */
export async function registerOpenApi(app: FastifyInstance, config: Config): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Formgate management API',
        version: VERSION,
        license: { name: 'MIT', identifier: 'MIT' },
        description:
          'Manage workspaces, forms, email templates and submissions. Every request carries `Authorization: Bearer <token>`; each operation names the scope it needs. Errors are RFC 9457 problems. ' +
          'Query parameters an operation does not declare are ignored; body fields it does not declare are refused, except a resource’s read-only fields sent back (see each operation).',
      },
      servers: [{ url: config.baseUrl }],
      tags: [
        { name: 'Token', description: 'The token making the request.' },
        { name: 'Workspaces', description: 'The workspaces an account belongs to; every form belongs to one.' },
        { name: 'Forms', description: 'Forms and their settings: where submissions are sent, and how spam is kept out.' },
        { name: 'Templates', description: 'A form’s email templates: the notification to its recipients, and the autoresponder to the submitter.' },
        { name: 'Submissions', description: 'What visitors sent: lists, search, exports, files, deletion and erasure of a person.' },
        {
          name: 'Automations',
          description: 'Subscriptions of automation platforms (Zapier, Make, n8n, Activepieces) to a form’s events, and samples for their editors.',
        },
      ],
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'A token made with `formgate tokens create`.' } } },
    },
    hideUntagged: true,
    transformObject: (built) => finish((built as unknown as { openapiObject: Document }).openapiObject),
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    transform: ({ schema, url }) => ({ schema, url: url.startsWith(API_PREFIX) ? url.slice(API_PREFIX.length) : url }),
  });
  // servers are filled in per request: with port 0 the address is known only after listen()
  app.get(`${API_PREFIX}/openapi.json`, { config: { rateLimit: false } }, async () => {
    const document = app.swagger() as unknown as { info: Record<string, unknown> };
    // the installation's operator answers for it: its dashboard is the way to reach them
    const contact = { name: 'The operator of this Formgate installation', url: config.publicUrl };
    return { ...document, info: { ...document.info, contact }, servers: [{ url: config.baseUrl }] };
  });
}

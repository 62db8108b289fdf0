import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

/**
 * Fastify's own response serializers (fast-json-stringify, with the shared schemas), each compiled
 * when its route first answers with that status instead of before listening: compiling all of
 * them was about a tenth of `formgate serve`'s start.
 */
export function serializersOnFirstUse(): NonNullable<FastifyServerOptions['schemaController']> {
  const factory = SerializerSelector();
  return {
    compilersFactory: {
      buildSerializer: (externalSchemas: unknown, options: unknown) => {
        const compile = factory(externalSchemas, options as Parameters<typeof factory>[1]);
        return (route: Parameters<typeof compile>[0]) => {
          let serialize: ((payload: unknown) => string) | undefined;
          return (payload: unknown) => {
            serialize ??= compile(route);
            return serialize(payload);
          };
        };
      },
    },
  };
}

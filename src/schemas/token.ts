import { Type } from '@sinclair/typebox';
import { SCOPES } from '../domain/scopes.js';
import { DateTime, NullableString, StringEnum } from './common.js';

export const TokenSchema = Type.Object(
  {
    name: Type.String(),
    scopes: Type.Array(StringEnum(SCOPES, 'A scope of the token.')),
    expiresAt: NullableString(Type.String({ format: 'date-time', description: 'Null when the token never expires.' })),
    lastUsedAt: NullableString(Type.String({ format: 'date-time', description: 'Accurate to the minute; null before first use.' })),
    createdAt: DateTime,
  },
  { $id: 'Token', description: 'The token making the request.' },
);

import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import { clip, ProblemError, validationError } from '../errors.js';
import { jsonNestsDeeperThan } from '../web/json-depth.js';
import { MAX_DEPTH } from '../intake/field-paths.js';
import { fieldsFromJson, fieldsFromPairs, type ParsedSubmission } from '../intake/fields.js';

/** The largest body the submit surface reads (documented in docs/submit.md). */
export const SUBMIT_BODY_LIMIT = 256 * 1024;

const tooLarge = () => new ProblemError('payload_too_large', `The submission is larger than ${SUBMIT_BODY_LIMIT / 1024} KB.`);

/** Reads and parses a submission posted as urlencoded, multipart (text fields only) or JSON. */
export async function readSubmission(request: IncomingMessage): Promise<ParsedSubmission> {
  const declared = Number(request.headers['content-length']);
  if (declared > SUBMIT_BODY_LIMIT) throw tooLarge();
  const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  switch (type) {
    case 'application/x-www-form-urlencoded':
      return fieldsFromPairs(new URLSearchParams(await readText(request)));
    case 'application/json':
      return fieldsFromJson(await parseJson(await readText(request)));
    case 'multipart/form-data':
      return fieldsFromPairs(await readMultipart(request));
    default:
      throw validationError(
        [`body: Content-Type must be application/x-www-form-urlencoded, multipart/form-data or application/json${type ? `, got ${clip(type)}` : ''}`],
        'The submission could not be read.',
      );
  }
}

/** The body as UTF-8 text; past the limit it refuses at once and the rest is read and dropped while the 413 goes out. */
function readText(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      const withinLimitSoFar = size <= SUBMIT_BODY_LIMIT;
      size += chunk.length;
      if (size <= SUBMIT_BODY_LIMIT) chunks.push(chunk);
      else if (withinLimitSoFar) reject(tooLarge());
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

// A number of 16 or more digits, or one with an exponent, may not survive as a double: only a
// text holding one (or something like it, in a string) takes the slower, exact parse.
const MAYBE_INEXACT_NUMBER = /\d[\d.]{15}|\d[eE]/;

// Loaded at the first body that needs it: few do, and it need not weigh on every start.
let losslessJson: Promise<typeof import('lossless-json')> | undefined;

function loadLosslessJson(): Promise<typeof import('lossless-json')> {
  losslessJson ??= import('lossless-json');
  return losslessJson;
}

/**
 * JSON.parse, except that a number a double cannot hold exactly (an order number of 20 digits,
 * 1e400) is kept as the digits sent, in a string, instead of being rounded or turned into null.
 * Everything else is as JSON.parse gives it, a repeated key included: the last one wins.
 */
async function parseJson(text: string): Promise<unknown> {
  if (text.trim() === '') throw validationError(['body: must be a JSON object of fields, got an empty body'], 'The submission is empty.');
  // Refused before parsing: the exact parser, the copy and the checks after it all recurse. The body
  // object is one level more than its fields' own MAX_DEPTH, which fieldsFromJson enforces exactly.
  if (jsonNestsDeeperThan(text, MAX_DEPTH + 1)) throw validationError([`fields: at most ${MAX_DEPTH} levels of nesting`], 'The submission nests too deeply.');
  const exact = MAYBE_INEXACT_NUMBER.test(text) ? await loadLosslessJson() : null;
  try {
    if (!exact) return JSON.parse(text);
    return exact.parse(text, undefined, {
      parseNumber: (digits) => (exact.isSafeNumber(digits) ? Number(digits) : digits),
      onDuplicateKey: ({ newValue }) => newValue,
    });
  } catch {
    throw validationError(['body: is not valid JSON'], 'The submission could not be read.');
  }
}

/** Named text parts in order; a named part that carries a file is refused (Formgate stores no uploads). */
function readMultipart(request: IncomingMessage): Promise<[string, string][]> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: request.headers, defParamCharset: 'utf8', limits: { fieldSize: SUBMIT_BODY_LIMIT, fieldNameSize: 1024 } });
    } catch {
      reject(validationError(['body: multipart/form-data without a valid boundary'], 'The submission could not be read.'));
      return;
    }
    const pairs: [string, string][] = [];
    let size = 0;
    let failure: ProblemError | null = null;
    const fail = (problem: ProblemError) => {
      failure ??= problem;
      request.unpipe(parser);
      request.resume();
      reject(failure);
    };
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > SUBMIT_BODY_LIMIT) fail(tooLarge());
    });
    request.on('error', reject);
    // A part without a name is dropped, as a browser drops an input without one (4.7, rule 1).
    parser.on('field', (name, value) => {
      if (name) pairs.push([name, value]);
    });
    parser.on('file', (name, stream, info) => {
      if (!name) return void stream.resume();
      let bytes = 0;
      stream.on('data', (chunk: Buffer) => (bytes += chunk.length));
      stream.on('end', () => {
        // A file input left empty still sends a nameless, empty part: that is no upload.
        if (bytes > 0 || info.filename) {
          fail(validationError([`${name}: file uploads are not accepted; send text fields only`], 'The submission carried a file.'));
        }
      });
    });
    parser.on('error', () => fail(validationError(['body: is not valid multipart/form-data'], 'The submission could not be read.')));
    parser.on('close', () => {
      if (!failure) resolve(pairs);
    });
    request.pipe(parser);
  });
}

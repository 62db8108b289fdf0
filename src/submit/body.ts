import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import { clip, ProblemError, validationError } from '../errors.js';
import { ClientAbortedError } from './client-aborted.js';
import { jsonNestsDeeperThan } from '../web/json-depth.js';
import { MAX_DEPTH } from '../intake/field-paths.js';
import { fieldsFromJson, fieldsFromPairs, type ParsedSubmission } from '../intake/fields.js';
import { withFiles } from '../intake/file-fields.js';
import { EchoFiles } from '../intake/echo-files.js';
import type { FileParts } from '../intake/file-fields.js';

/** The largest body the submit surface reads (documented in docs/submit.md). */
export const SUBMIT_BODY_LIMIT = 256 * 1024;
/**
 * The most parts (text fields and files, ignored `_` parts and empty file inputs included) one
 * multipart post may have, and pairs one urlencoded body may have: twice the fields a submission
 * may keep (1,000) and far above any real form; each costs a parse (and a part a stream), so an
 * unbounded count cost seconds of CPU.
 */
export const MULTIPART_PARTS_MAX = 2000;

const tooLarge = (limit = SUBMIT_BODY_LIMIT) =>
  new ProblemError(
    'payload_too_large',
    `The submission is larger than ${limit < 1024 * 1024 ? `${limit / 1024} KB` : `${Math.floor(limit / (1024 * 1024))} MB`}.`,
  );

/** The body's media type, lower-cased, without parameters. */
export function bodyType(request: IncomingMessage): string {
  return (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

/**
 * Reads and parses a submission posted as urlencoded, multipart or JSON. `uploads`: where a
 * multipart post's files go (its form is known); without it, they are only read and described
 * (`/echo`: nothing is stored).
 */
export async function readSubmission(
  request: IncomingMessage,
  files: FileParts | null = null,
  /** Told the control fields read before a multipart post was refused (its `_error`, its wording). */
  onRefused?: (controls: Record<string, string>) => void,
): Promise<ParsedSubmission> {
  const declared = Number(request.headers['content-length']);
  const type = bodyType(request);
  if (type === 'multipart/form-data') {
    const uploads: FileParts = files ?? new EchoFiles();
    if (declared > SUBMIT_BODY_LIMIT + uploads.bodyCap) throw tooLarge(SUBMIT_BODY_LIMIT + uploads.bodyCap);
    uploads.expect?.(declared);
    const pairs = await readMultipart(request, uploads, onRefused);
    try {
      return withFiles(fieldsFromPairs(pairs), uploads);
    } catch (error) {
      await uploads.discard();
      throw error;
    }
  }
  if (declared > SUBMIT_BODY_LIMIT) throw tooLarge();
  switch (type) {
    case 'application/x-www-form-urlencoded':
      return fieldsFromPairs(urlencodedPairs(await readText(request)));
    case 'application/json':
      return fieldsFromJson(await parseJson(await readText(request)));
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
    // NOTE: a visitor who hangs up mid-post comes as an ECONNRESET error, or as a close alone
    request.on('error', (error) => reject(request.complete ? error : new ClientAbortedError(error)));
    request.on('close', () => {
      if (!request.complete) reject(new ClientAbortedError());
    });
  });
}

/**
 * The pairs of a urlencoded body, refused past MULTIPART_PARTS_MAX of them before they are parsed:
 * URLSearchParams took 0.6 s of CPU for the 128,000 empty pairs that fit in 256 KB.
 */
function urlencodedPairs(text: string): URLSearchParams {
  let pairs = 1;
  for (let at = text.indexOf('&'); at !== -1; at = text.indexOf('&', at + 1)) {
    if (++pairs > MULTIPART_PARTS_MAX) {
      const why = `at most ${MULTIPART_PARTS_MAX} name=value pairs in one post`;
      throw new ProblemError('payload_too_large', `The submission has too many fields: ${why}.`, { errors: [`body: ${why}`] });
    }
  }
  return new URLSearchParams(text);
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

/**
 * Named parts in order. A file part goes to `uploads` as it arrives (its place among the fields
 * kept); without `uploads` it is refused. Text fields have the 256 KB limit, files their own.
 */
function readMultipart(request: IncomingMessage, uploads: FileParts, onRefused?: (controls: Record<string, string>) => void): Promise<[string, string][]> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      // NOTE: busboy tells `partsLimit` once it has read this many: one more than allowed, so a post of exactly the maximum passes
      const limits = { fieldSize: SUBMIT_BODY_LIMIT, fieldNameSize: 1024, parts: MULTIPART_PARTS_MAX + 1 };
      parser = busboy({ headers: request.headers, defParamCharset: 'utf8', limits });
    } catch {
      reject(validationError(['body: multipart/form-data without a valid boundary'], 'The submission could not be read.'));
      return;
    }
    const pairs: [string, string | Promise<string | null>][] = [];
    const parts: Promise<unknown>[] = [];
    const bodyLimit = SUBMIT_BODY_LIMIT + uploads.bodyCap;
    let size = 0;
    let textSize = 0;
    let failure = false;
    const fail = (problem: unknown) => {
      if (failure) return;
      failure = true;
      if (onRefused) onRefused(controlsSoFar(pairs));
      request.unpipe(parser);
      request.resume();
      // the objects already written go before the answer: a refused post leaves nothing behind
      void uploads.discard().then(() => reject(problem));
    };
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > bodyLimit) fail(tooLarge(bodyLimit));
    });
    // a visitor who goes away mid-upload: the files written so far go, and a write under way stops
    const cutOff = () => fail(validationError(['body: the upload was cut off before its end'], 'The submission could not be read.'));
    request.on('error', cutOff);
    request.on('close', () => {
      if (!request.complete) cutOff();
    });
    // A part without a name is dropped, as a browser drops an input without one (4.7, rule 1).
    parser.on('field', (name, value) => {
      if (!name) return;
      textSize += name.length + value.length;
      if (textSize > SUBMIT_BODY_LIMIT) return fail(tooLarge());
      pairs.push([name, value]);
    });
    parser.on('file', (name, stream, info) => {
      if (!name || failure) return void stream.resume();
      const part = uploads.part(name, stream, info);
      part.catch(fail);
      parts.push(part);
      pairs.push([name, part]);
    });
    parser.on('partsLimit', () => fail(tooManyParts()));
    parser.on('error', () => fail(validationError(['body: is not valid multipart/form-data'], 'The submission could not be read.')));
    parser.on('close', () => {
      if (failure) return;
      void Promise.all([...parts, uploads.settled()]).then(async () => {
        if (failure) return;
        const named: [string, string][] = [];
        for (const [name, value] of pairs) {
          const text = typeof value === 'string' ? value : await value;
          if (text !== null && !uploads.droppedLater?.(text)) named.push([name, text]);
        }
        resolve(named);
      }, fail);
    });
    request.pipe(parser);
  });
}

function tooManyParts(): ProblemError {
  const why = `at most ${MULTIPART_PARTS_MAX} parts (text fields and files) in one post`;
  return new ProblemError('payload_too_large', `The submission has too many parts: ${why}.`, { errors: [`body: ${why}`] });
}

/** The control fields among the text parts read so far; none when they cannot be read. */
function controlsSoFar(pairs: [string, unknown][]): Record<string, string> {
  try {
    return fieldsFromPairs(pairs.filter((pair): pair is [string, string] => typeof pair[1] === 'string' && pair[0].startsWith('_'))).controls;
  } catch {
    return {};
  }
}

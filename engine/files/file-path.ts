// File paths: `/`-separated folders and a name. The structure is a 400 (a path is
// required; no empty segment, so no leading, trailing or doubled `/`; no `.` or `..`
// segment), lengths and characters a 422 like every field cap (api/validation.ts): a segment
// at most FILE_SEGMENT_BYTES_MAX UTF-8 bytes, the path at most FILE_PATH_BYTES_MAX, no
// control characters (U+0000-U+001F, U+007F) and no unpaired surrogate. Checked in that
// order: characters, the path's length, the structure, the segments' lengths. Names are compared
// byte for byte: no case folding, no Unicode normalisation. Percent-decoding is the front
// end's; these functions see decoded text. Names never reach the file system (the bytes are
// stored under generated keys, blob-store.ts), so nothing else needs refusing.
import { BadRequestError, UnprocessableError } from '../errors.ts';
import { FILE_PATH_BYTES_MAX, FILE_SEGMENT_BYTES_MAX } from '../limits.ts';

export interface FilePath {
  /** `folder/name`, or `name` for a file at the top. */
  path: string;
  /** '' at the top. */
  folder: string;
  name: string;
}

const CONTROL = /[\u0000-\u001f\u007f]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function shown(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

/** The segments of a folder path or a file path, checked; `what` names the input in errors. */
function segmentsOf(text: string, field: string, what: string): string[] {
  if (CONTROL.test(text) || LONE_SURROGATE.test(text)) {
    throw new UnprocessableError(`${what} must not contain control characters or unpaired surrogates`, [{ field, message: 'control character or unpaired surrogate', value: shown(text) }]);
  }
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > FILE_PATH_BYTES_MAX) {
    throw new UnprocessableError(`${what} is ${bytes} UTF-8 bytes; at most ${FILE_PATH_BYTES_MAX} are allowed`, [{ field, message: `at most ${FILE_PATH_BYTES_MAX} UTF-8 bytes`, value: shown(text), limit: FILE_PATH_BYTES_MAX }]);
  }
  const segments = text.split('/');
  // Structure before segment lengths: a malformed path is a 400 whatever its segments' sizes.
  for (const segment of segments) {
    if (segment === '' || segment === '.' || segment === '..') {
      const problem = segment === '' ? 'an empty segment (a leading, trailing or doubled `/`)' : `a \`${segment}\` segment`;
      throw new BadRequestError(`${what} "${shown(text)}" has ${problem}; write folders and a name joined by single \`/\``, [{ field, message: segment === '' ? 'empty segment' : `\`${segment}\` segment`, value: shown(text) }]);
    }
  }
  for (const segment of segments) {
    const segmentBytes = Buffer.byteLength(segment, 'utf8');
    if (segmentBytes > FILE_SEGMENT_BYTES_MAX) {
      throw new UnprocessableError(`A segment of ${what.toLowerCase()} is ${segmentBytes} UTF-8 bytes; at most ${FILE_SEGMENT_BYTES_MAX} are allowed`, [{ field, message: `a segment of at most ${FILE_SEGMENT_BYTES_MAX} UTF-8 bytes`, value: shown(segment), limit: FILE_SEGMENT_BYTES_MAX }]);
    }
  }
  return segments;
}

/** A file's path, checked and split; `field` names it in errors (`path`, `items[3].path`). */
export function parseFilePath(text: string | null | undefined, field = 'path'): FilePath {
  if (text === null || text === undefined || text === '') {
    throw new BadRequestError(`${field} is required: folders and a name joined by \`/\``, [{ field, message: 'required' }]);
  }
  const segments = segmentsOf(text, field, 'The file path');
  const name = segments.pop() as string;
  return { path: text, folder: segments.join('/'), name };
}

/** A folder to list: absent or '' is the top; otherwise the same rules as a path. */
export function parseFolder(text: string | null | undefined, field = 'folder'): string {
  if (text === null || text === undefined || text === '') return '';
  return segmentsOf(text, field, 'The folder').join('/');
}

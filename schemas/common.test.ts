// Goal: schemas/ may import only TypeBox, so the field caps it validates with are a copy of
// engine/limits.ts; this keeps the two equal. Method: compare each mirrored constant.
import t from 'tap';
import { CAPS } from './common.ts';
import * as limits from '../engine/limits.ts';

t.equal(CAPS.itemsPerRequestMax, limits.ITEMS_PER_REQUEST_MAX);
t.equal(CAPS.descriptionCharsMax, limits.DESCRIPTION_CHARS_MAX);
t.equal(CAPS.metadataEntriesMax, limits.METADATA_ENTRIES_MAX);
t.equal(CAPS.metadataKeyCharsMax, limits.METADATA_KEY_CHARS_MAX);
t.equal(CAPS.metadataValueCharsMax, limits.METADATA_VALUE_CHARS_MAX);
t.equal(CAPS.labelsMax, limits.LABELS_MAX);
t.equal(CAPS.labelCharsMax, limits.LABEL_CHARS_MAX);
t.equal(CAPS.timeseriesListLimitMax, limits.TIMESERIES_LIST_LIMIT_MAX);
t.equal(CAPS.timeseriesListLimitDefault, limits.TIMESERIES_LIST_LIMIT_DEFAULT);
t.equal(CAPS.fileListLimitMax, limits.FILE_LIST_LIMIT_MAX);
t.equal(CAPS.fileListLimitDefault, limits.FILE_LIST_LIMIT_DEFAULT);

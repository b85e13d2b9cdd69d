-- Files: the index of the files feature. The bytes live in the blob store
-- (engine/files/blob-store.ts) under generated keys; a row names the blob its path holds.
-- Paths compare byte for byte (COLLATE "C"), so a folder's files page by name and a recursive
-- listing is one range of the primary key. Tenant first in every key.
CREATE TABLE files (
  tenant text NOT NULL,
  path text COLLATE "C" NOT NULL,
  folder text COLLATE "C" NOT NULL,
  name text COLLATE "C" NOT NULL,
  size bigint NOT NULL,
  content_type text NOT NULL,
  sha256 text NOT NULL,
  blob_key text NOT NULL,
  created_time bigint NOT NULL,
  PRIMARY KEY (tenant, path)
);
-- One folder's files by name (GET /files without recursive).
CREATE INDEX files_folder ON files (tenant, folder, name);

-- Blobs that may be unreferenced: one written but not yet in the index (`staged`, removed
-- by the transaction that indexes it) or one a replace or delete left behind (`garbage`,
-- removed once the blob is). After a crash, every row left names a blob no index row names;
-- the next start removes those blobs (engine/files/file-recovery.ts).
CREATE TABLE file_blobs_pending (
  tenant text NOT NULL,
  blob_key text NOT NULL,
  state text NOT NULL CHECK (state IN ('staged', 'garbage')),
  since bigint NOT NULL,
  PRIMARY KEY (tenant, blob_key)
);

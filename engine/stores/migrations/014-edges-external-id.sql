-- An externalId on edges: CDF's clients (docs/cdf.md "Relationships") name a relationship by
-- a client-chosen externalId, unique in the project, and by nothing else. Edges written through
-- SPEC's surface have none (SPEC's edges are named by id and do not show it); an edge with
-- one is a CDF relationship. Byids and the duplicate check are index probes.
ALTER TABLE edges ADD COLUMN external_id text;
CREATE UNIQUE INDEX edges_external_id ON edges (tenant, external_id) WHERE external_id IS NOT NULL;

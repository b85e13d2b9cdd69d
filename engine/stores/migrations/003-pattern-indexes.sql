-- Case-insensitive pattern filters on externalId and name (SPEC filter patterns) compile to
-- lower(column) LIKE lower(pattern); these indexes serve their literal prefixes.
CREATE INDEX nodes_external_id_lower ON nodes (tenant, kind, lower(external_id) text_pattern_ops);
CREATE INDEX nodes_name_lower ON nodes (tenant, kind, lower(name) text_pattern_ops);

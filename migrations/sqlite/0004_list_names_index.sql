-- Listing the tables (or views) of a namespace reads this index alone, already in name order,
-- instead of visiting every row of the namespace for its type (10 000 tables: ~2x faster).
CREATE INDEX IF NOT EXISTS cairn_tables_by_kind
  ON iceberg_tables (catalog_name, table_namespace, coalesce(iceberg_type, 'TABLE'), table_name);

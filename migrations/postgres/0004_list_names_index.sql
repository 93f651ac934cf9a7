-- Listing the tables (or views) of a namespace reads this index, already in name order
-- (byte order, as the listing sorts), instead of sorting every row of the namespace.
CREATE INDEX IF NOT EXISTS cairn_tables_by_kind
  ON iceberg_tables (catalog_name, table_namespace, (coalesce(iceberg_type, 'TABLE')),
                     table_name COLLATE "C");
